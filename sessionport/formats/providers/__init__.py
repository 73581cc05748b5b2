"""The providers' message lists: Anthropic Messages, OpenAI Chat Completions,
OpenAI Responses and Gemini ``contents`` (requests, bare lists, recorded
cassettes).  They share sniffing (``sniff``), the document walk (``reader``),
content helpers (``content``) and the writers' turn building (``turns``,
``document``); each format has a ``*_reader`` and a ``*_writer`` module.
"""
