"""Value classes written out by hand.

A ``@dataclass`` builds its methods from source text with ``exec`` when its
module is imported, a cost every start of the program pays for each class
the run imports.  The classes every run loads derive from :class:`Frozen`
instead: their fields are their ``__slots__``, their ``__init__`` is
written out, and this base gives the equality, hash, repr, pickling and
read-only attributes a frozen dataclass has; ``dataclasses.replace``,
``fields`` and ``asdict`` work on them as on a dataclass (the fields are
described on first use).
"""

from __future__ import annotations


class FrozenInstanceError(AttributeError):
    """An attribute of a read-only instance was assigned or deleted."""


class _Described:
    """``__dataclass_fields__`` and ``__dataclass_params__``, built when first
    asked for (by ``dataclasses.replace``, ``fields``, ``asdict``,
    ``is_dataclass`` or a library that walks dataclasses): those of a
    dataclass declared with the same fields and defaults."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, obj: object, cls: type):
        import dataclasses
        import inspect

        parameters = inspect.signature(cls.__init__).parameters
        annotations: dict = {}
        for klass in reversed(cls.__mro__):
            annotations.update(klass.__dict__.get("__annotations__", {}))
        namespace: dict = {"__annotations__": {}}
        for name in cls._field_names():
            namespace["__annotations__"][name] = annotations.get(name, "Any")
            default = parameters[name].default
            if default is not inspect.Parameter.empty:
                namespace[name] = default
        shadow = dataclasses.dataclass(frozen=issubclass(cls, Frozen))(type(cls.__name__, (), namespace))
        type.__setattr__(cls, "__dataclass_fields__", shadow.__dataclass_fields__)
        type.__setattr__(cls, "__dataclass_params__", shadow.__dataclass_params__)
        return getattr(shadow, self.attribute)


class Record:
    """Equality, repr and copies over the fields named in ``_fields`` (a
    mutable dataclass: not hashable)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    __dataclass_fields__ = _Described("__dataclass_fields__")
    __dataclass_params__ = _Described("__dataclass_params__")
    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def _field_names(cls) -> tuple[str, ...]:
        return cls._fields

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._field_names())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._field_names())
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object):
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    def replace(self, **changes):
        """A copy with ``changes`` (as ``dataclasses.replace``)."""
        return type(self)(**{**dict(zip(self._field_names(), self._values())), **changes})


class Frozen(Record):
    """A read-only :class:`Record` whose fields are its ``__slots__``; hashable."""

    __slots__ = ()

    @classmethod
    def _field_names(cls) -> tuple[str, ...]:
        return cls.__slots__

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self):
        return (type(self), self._values())
