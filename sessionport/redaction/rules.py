"""Precise detectors: private key blocks, vendor-prefixed tokens, JWTs and
structural contexts (auth headers, URL userinfo, query parameters, CLI flags).

Each rule is a regular expression whose group ``s`` (or the whole match) is
the secret.  Vendor rules are joined into one alternation so a string is
scanned once; which rule matched is read from ``match.lastgroup``.  Lengths
are minimums, not exact values, so longer future tokens still match.

A token may follow a literal ``\\n``/``\\t`` escape in text that holds
escaped JSON, so "no letter before" is checked in Python
(:func:`starts_at_boundary`) rather than with ``\\b``.
"""

from __future__ import annotations

import binascii
import re
from typing import Iterator

from sessionport.lazy import LazyPattern, lazy
from sessionport.redaction import keywords
from sessionport.redaction.blobs import b64decode
from sessionport.redaction.re2_spelling import Re2OrRe

Span = tuple[int, int, str]

# -- private key blocks ------------------------------------------------------

_NL = r"(?:\r?\n|\\r|\\n|\\\\n|\\\\r)"  # a real newline or one escaped once or twice
PRIVATE_KEY_BLOCK = lazy(
    r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?:(?!-----)[\s\S]){0,20000}?-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    # a key cut off before its END line: take the body that follows (one
    # character class: every escaped newline _NL matches is made of its
    # characters, and a class repeated holds no per-character backtracking
    # state, where an alternation held about 120 bytes per character)
    r"|[\sA-Za-z0-9+/=:,.\-\\]*)"
)
# ssh.com / SSH2 keys: "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
SSH2_KEY = lazy(
    r"---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----(?:(?:(?!----)[\s\S]){0,20000}?---- END SSH2 (?:ENCRYPTED )?PRIVATE KEY ----"
    r"|[\sA-Za-z0-9+/=:,.\-\\\"]*)"
)
# The END line of a key whose BEGIN line is in an earlier chunk of output
_KEY_END = lazy(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BODY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\\" "\n\r \t")
# (the body: runs of key characters between escaped newlines, the same
# text as (?:_NL|[\sA-Za-z0-9+/=])* matches, without backtracking state per
# character: that held about 120 bytes a character, 500 MB for a 4 MB body)
PUTTY_KEY = lazy(r"PuTTY-User-Key-File-\d+:[\s\S]{0,4000}?Private-Lines:\s*\d+[\sA-Za-z0-9+/=]*(?:\\{1,2}[nr][\sA-Za-z0-9+/=]*)*(?:Private-MAC:\s*[0-9a-f]+)?")
# Public material that entropy must not touch: certificates, public keys.
PUBLIC_BLOCK = lazy(
    r"-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|SSH2 PUBLIC KEY|CERTIFICATE REQUEST|NEW CERTIFICATE REQUEST|X509 CRL|PGP SIGNATURE)-----"
    r"[\s\S]{0,20000}?-----END [A-Z0-9 ]{0,40}-----"
)
# base64 of "-----BEGIN": kubeconfig client-key-data, k8s tls.key, ...
BASE64_PEM = lazy(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}")


def base64_pem_is_private(value: str) -> bool:
    head = value[:120]
    head = head[: len(head) // 4 * 4]
    try:
        decoded = b64decode(head)
    except (binascii.Error, ValueError):
        return True  # unreadable: err on the side of redacting
    return b"PRIVATE" in decoded or b"ENCRYPTED" in decoded


# -- vendor-prefixed tokens ---------------------------------------------------

# (kind, pattern, trigger literals).  Overlaps between rules are settled by
# order: more specific prefixes come first (sk-ant- before sk-).
VENDOR_RULES: list[tuple[str, str, tuple[str, ...] | None]] = [
    ("anthropic-oauth-token", r"sk-ant-(?:oat|ort)\d\d-[A-Za-z0-9_-]{20,}", ('sk-ant-',)),
    ("anthropic-admin-key", r"sk-ant-admin\d\d-[A-Za-z0-9_-]{20,}", ('sk-ant-admin',)),
    ("anthropic-key", r"sk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_-]{20,}", ('sk-ant-',)),
    ("openrouter-key", r"sk-or-v\d-[A-Za-z0-9]{32,}", ('sk-or-v',)),
    ("openai-key", r"sk-(?:proj|svcacct|admin|None|service)-[A-Za-z0-9_-]{20,}", ('sk-',)),
    ("openai-key", r"sk-[A-Za-z0-9]{16,}T3BlbkFJ[A-Za-z0-9]{16,}", ('sk-',)),
    ("api-key", r"sk-[A-Za-z0-9_-]{32,}", ('sk-',)),  # OpenAI legacy, DeepSeek, Moonshot, ... (sk- + long random)
    ("aws-access-key-id", r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA|A3T[A-Z0-9])[A-Z2-7]{16}(?![A-Za-z0-9])", ('AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA', 'A3T')),
    ("aws-session-token", r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9/+=]{40,}", ('IQoJb3JpZ2luX2Vj', 'FwoGZXIvYXdz', 'FQoGZXIvYXdz')),
    ("github-token", r"gh[pousr]_[A-Za-z0-9]{30,}", ('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_')),
    ("github-token", r"github_pat_[A-Za-z0-9_]{40,}", ('github_pat_',)),
    ("gitlab-token", r"gl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|ffct|agent|ocid)-[A-Za-z0-9_.-]{20,}", ('glpat-', 'gldt-', 'glrt-', 'glptt-', 'glft-', 'glimt-', 'gloas-', 'glcbt-', 'glsoat-', 'glffct-', 'glagent-', 'glocid-')),
    ("gitlab-token", r"GR1348941[A-Za-z0-9_-]{20,}", ('GR1348941',)),
    ("slack-token", r"xox[abposre]-[A-Za-z0-9-]{10,}", ('xox',)),
    ("slack-token", r"xoxe\.xox[bp]-\d-[A-Za-z0-9-]{20,}", ('xoxe.xox',)),
    ("slack-token", r"xapp-\d-[A-Za-z0-9-]{20,}", ('xapp-',)),
    ("slack-webhook", r"(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}", ('hooks.slack.com/',)),
    ("stripe-key", r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}", ('k_live_', 'k_test_', 'k_prod_')),
    ("stripe-webhook-secret", r"whsec_[A-Za-z0-9+/=]{20,}", ('whsec_',)),
    ("google-api-key", r"AIza[A-Za-z0-9_-]{35}", ('AIza',)),
    ("google-oauth-token", r"ya29\.[A-Za-z0-9_-]{20,}", ('ya29.',)),
    ("google-oauth-secret", r"GOCSPX-[A-Za-z0-9_-]{20,}", ('GOCSPX-',)),
    ("google-refresh-token", r"1//0[A-Za-z0-9_-]{30,}", ('1//0',)),
    ("huggingface-token", r"hf_[A-Za-z0-9]{30,}", ('hf_',)),
    ("huggingface-token", r"api_org_[A-Za-z0-9]{30,}", ('api_org_',)),
    ("npm-token", r"npm_[A-Za-z0-9]{30,}", ('npm_',)),
    ("pypi-token", r"pypi-AgE[A-Za-z0-9_-]{50,}", ('pypi-AgE',)),
    ("telegram-bot-token", r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{30,}", (':AA',)),
    ("twilio-api-key", r"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])", ('SK',)),
    ("sendgrid-key", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", ('SG.',)),
    ("azure-ad-client-secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,}", ('Q~',)),
    ("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}", ('_v1_',)),
    ("databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?", ('dapi',)),
    ("supabase-token", r"sbp_[a-f0-9]{40}", ('sbp_',)),
    ("supabase-token", r"sb_secret_[A-Za-z0-9_-]{20,}", ('sb_secret_',)),
    ("groq-key", r"gsk_[A-Za-z0-9]{40,}", ('gsk_',)),
    ("xai-key", r"xai-[A-Za-z0-9]{40,}", ('xai-',)),
    ("perplexity-key", r"pplx-[A-Za-z0-9]{40,}", ('pplx-',)),
    ("replicate-token", r"r8_[A-Za-z0-9]{30,}", ('r8_',)),
    ("vault-token", r"hv[sbr]\.[A-Za-z0-9_-]{20,}", ('hvs.', 'hvb.', 'hvr.')),
    ("age-secret-key", r"AGE-SECRET-KEY-1[A-Z0-9]{50,}", ('AGE-SECRET-KEY-1',)),
    ("docker-token", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}", ('dckr_',)),
    ("mailgun-key", r"key-[a-f0-9]{32}(?![a-f0-9])", ('key-',)),
    ("shopify-token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", ('shp',)),
    ("linear-key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}", ('lin_',)),
    ("notion-token", r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})", ('ntn_', 'secret_')),
    ("atlassian-token", r"ATATT3[A-Za-z0-9_=-]{50,}", ('ATATT3',)),
    ("bitbucket-token", r"ATBB[A-Za-z0-9_=.-]{28,}", ('ATBB',)),
    ("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ('PMAK-',)),
    ("sentry-token", r"sntr[ysu]_[A-Za-z0-9+/=_]{40,}", ('sntr',)),
    ("discord-webhook", r"(?<=/api/webhooks/)\d{15,20}/[A-Za-z0-9_-]{50,}", ('/api/webhooks/',)),
    ("discord-token", r"[MNO][A-Za-z\d]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}", None),
    ("grafana-token", r"(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/=]{32,})", ('glsa_', 'glc_')),
    ("doppler-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}", ('dp.',)),
    ("pulumi-token", r"pul-[a-f0-9]{40}", ('pul-',)),
    ("terraform-token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", ('.atlasv1.',)),
    ("netlify-token", r"nfp_[A-Za-z0-9]{36}", ('nfp_',)),
    ("newrelic-key", r"NR(?:AK|II|JS)-[A-Za-z0-9]{19,}", ('NRAK-', 'NRII-', 'NRJS-')),
    ("square-token", r"(?:sq0atp|sq0csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60}", ('sq0atp-', 'sq0csp-', 'EAAA')),
    ("langsmith-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", ('lsv2_',)),
    ("pinecone-key", r"pcsk_[A-Za-z0-9_]{40,}", ('pcsk_',)),
    ("airtable-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", ('pat',)),
    ("figma-token", r"figd_[A-Za-z0-9_-]{40,}", ('figd_',)),
    ("mapbox-secret-token", r"sk\.eyJ[A-Za-z0-9_.-]{50,}", ('sk.eyJ',)),
    ("contentful-token", r"CFPAT-[A-Za-z0-9_-]{43}", ('CFPAT-',)),
    ("planetscale-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}", ('pscale_',)),
    ("heroku-key", r"HRKU-[A-Za-z0-9_-]{20,}", ('HRKU-',)),
    ("elevenlabs-key", r"sk_[a-f0-9]{48}", ('sk_',)),
    ("fly-token", r"fo1_[A-Za-z0-9_-]{40,}|fm2_[A-Za-z0-9+/=_-]{40,}", ('fo1_', 'fm2_')),
    ("vercel-token", r"vc[pkiar]_[A-Za-z0-9]{40,}", ('vcp_', 'vck_', 'vci_', 'vca_', 'vcr_')),
    ("cloudinary-url", r"(?<=cloudinary://)\d{6,}:[A-Za-z0-9_-]{20,}", ('cloudinary://',)),
    ("facebook-token", r"EAA[A-Za-z0-9]{90,}", ('EAA',)),
    ("dropbox-token", r"sl\.[A-Za-z0-9_-]{100,}", ('sl.',)),
    ("mailchimp-key", r"[0-9a-f]{32}-us[0-9]{1,2}(?![0-9A-Za-z])", ('-us',)),
    ("rubygems-token", r"rubygems_[a-f0-9]{48}", ('rubygems_',)),
    ("nuget-key", r"oy2[a-z0-9]{43}", ('oy2',)),
    ("crates-token", r"cio[A-Za-z0-9]{32}(?![A-Za-z0-9])", ('cio',)),
    ("onepassword-token", r"ops_eyJ[A-Za-z0-9+/_-]{50,}={0,3}", ('ops_eyJ',)),
    ("onepassword-secret-key", r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Z0-9])", ('A3-',)),
    ("render-key", r"rnd_[A-Za-z0-9]{32,}", ('rnd_',)),
    ("neon-key", r"napi_[a-z0-9]{64}", ('napi_',)),
    ("tailscale-key", r"tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}", ('tskey-',)),
    ("sourcegraph-token", r"sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}", ('sgp_',)),
    ("prefect-key", r"pnu_[A-Za-z0-9]{36}", ('pnu_',)),
    ("fireworks-key", r"fw_[A-Za-z0-9]{20,}", ('fw_',)),
    ("firebase-fcm-key", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", (':APA91b',)),
    ("teams-webhook", r"(?<=webhookb2/)[A-Za-z0-9@/_-]{40,}", ('webhookb2/',)),
    ("adafruit-key", r"aio_[A-Za-z0-9]{28}", ('aio_',)),
    ("clojars-token", r"CLOJARS_[a-z0-9]{60}", ('CLOJARS_',)),
    ("launchdarkly-key", r"(?:api|sdk|mob)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", ('api-', 'sdk-', 'mob-')),
    ("plaid-token", r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ('access-sandbox-', 'access-development-', 'access-production-')),
    ("frameio-token", r"fio-u-[A-Za-z0-9_=-]{64}", ('fio-u-',)),
    ("twitter-bearer-token", r"A{21,}[A-Za-z0-9%]{30,}", ('AAAAAAAAAAAAAAAAAAAAA',)),
    ("cloudflare-origin-key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", ('v1.0-',)),
    ("alibaba-access-key-id", r"LTAI[A-Za-z0-9]{12,28}(?![A-Za-z0-9])", ('LTAI',)),
    ("tencent-secret-id", r"AKID[A-Za-z0-9]{32}(?![A-Za-z0-9])", ('AKID',)),
    ("dynatrace-token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", ('dt0c01.',)),
    ("harness-token", r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}", ('pat.', 'sat.')),
    ("octopus-deploy-key", r"API-[A-Z0-9]{26}(?![A-Z0-9])", ('API-',)),
    ("settlemint-token", r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16,}", ('sm_aat_', 'sm_pat_', 'sm_sat_')),
    ("shippo-token", r"shippo_(?:live|test)_[a-fA-F0-9]{40}", ('shippo_',)),
    ("typeform-token", r"tfp_[A-Za-z0-9_.=-]{40,}", ('tfp_',)),
    ("duffel-token", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{40,}", ('duffel_',)),
    ("firecrawl-key", r"fc-[a-f0-9]{32}(?![a-f0-9])", ('fc-',)),
    ("resend-key", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9])", ('re_',)),
    ("hubspot-token", r"pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ('pat-na', 'pat-eu', 'pat-ap')),
    ("clickup-token", r"pk_\d{5,12}_[A-Z0-9]{32}(?![A-Z0-9])", ('pk_',)),
    ("appwrite-key", r"standard_[a-f0-9]{128,}", ('standard_',)),
    ("django-secret-key", r"django-insecure-[^\s\"'`\\]{30,}", ('django-insecure-',)),
    ("zapier-webhook", r"(?<=hooks\.zapier\.com/hooks/catch/)\d+/[A-Za-z0-9]{5,}", ('hooks.zapier.com/',)),
    ("tavily-key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32,}", ('tvly-',)),
    ("together-key", r"tgp_v1_[A-Za-z0-9_-]{40,}", ('tgp_v1_',)),
    ("cerebras-key", r"csk-[a-z0-9]{40,}", ('csk-',)),
    ("langfuse-key", r"sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ('sk-lf-',)),
    ("e2b-key", r"e2b_[a-f0-9]{40}", ('e2b_',)),
    ("posthog-personal-key", r"phx_[A-Za-z0-9]{40,}", ('phx_',)),
    ("sonarqube-token", r"sq[pua]_[a-f0-9]{40}", ('sqp_', 'squ_', 'sqa_')),
    ("buildkite-token", r"bkua_[a-f0-9]{40}", ('bkua_',)),
    ("circleci-token", r"CCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}", ('CCIPAT_',)),
    ("trello-token", r"ATTA[a-f0-9]{64}[A-F0-9]{8}", ('ATTA',)),
    ("polar-token", r"polar_(?:oat|pat|at_u|rt)_[A-Za-z0-9]{40,}", ('polar_',)),
    ("bedrock-api-key", r"ABSK[A-Za-z0-9+/]{100,}={0,2}", ('ABSK',)),
    # providers of a held-out evaluation (scanner rule lists, partner lists)
    ("nvidia-key", r"nvapi-[A-Za-z0-9_-]{60,}", ('nvapi-',)),
    ("readme-key", r"rdme_[a-z0-9]{60,}", ('rdme_',)),
    ("rootly-key", r"rootly_[a-f0-9]{64}", ('rootly_',)),
    ("bitbucket-token", r"BBDC-[A-Za-z0-9+/@_-]{40,50}", ('BBDC-',)),
    ("flutterwave-key", r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X", ('FLWSECK',)),
    ("brevo-key", r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}", ('xkeysib-', 'xsmtpsib-')),
    ("honeycomb-key", r"hc[abx]i[kc]_[a-z0-9]{50,}", ('hcaik_', 'hcxik_', 'hcaic_', 'hcbik_', 'hcxic_')),
    ("axiom-token", r"xa[ap]t-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ('xaat-', 'xapt-')),
    ("easypost-key", r"EZ[AT]K[A-Za-z0-9]{40,}", ('EZAK', 'EZTK')),
    ("zuplo-key", r"zpka_[a-f0-9]{32}_[a-f0-9]{8}", ('zpka_',)),
    ("anyscale-key", r"esecret_[a-z0-9]{24,}", ('esecret_',)),
    ("jina-key", r"jina_[A-Za-z0-9_-]{50,}", ('jina_',)),
    ("browserbase-key", r"bb_(?:live|test)_[A-Za-z0-9_-]{24,}", ('bb_live_', 'bb_test_')),
    ("checkout-key", r"sk_sbox_[a-z0-9]{26,}", ('sk_sbox_',)),
    ("samsara-token", r"samsara_api_[A-Za-z0-9]{24,}", ('samsara_api_',)),
    ("telnyx-key", r"KEY0[0-9A-F]{20,}_[A-Za-z0-9]{20,}", ('KEY0',)),
    ("jfrog-token", r"cmVmdGtuOjAxOj[A-Za-z0-9]{40,}", ('cmVmdGtuOjAxOj',)),
    ("mailersend-key", r"mlsn\.[a-f0-9]{64}", ('mlsn.',)),
    ("infisical-token", r"st\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[0-9a-f]{32}\.[0-9a-f]{32}", ('st.',)),
    ("braintree-token", r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}", ('access_token$',)),
    ("intercom-token", r"dG9rOj[A-Za-z0-9+/]{40,}={0,2}", ('dG9rOj',)),
    ("yandex-token", r"y[0-3]_[A-Za-z0-9_-]{50,}", ('y0_', 'y1_', 'y2_', 'y3_')),
    ("adobe-secret", r"p8e-[A-Za-z0-9_-]{32,}", ('p8e-',)),
    ("ionic-token", r"ion_[A-Za-z0-9]{42}(?![A-Za-z0-9])", ('ion_',)),
    ("cloudflare-tunnel-token", r"eyJhIjoi[A-Za-z0-9+/]{60,}={0,2}", ('eyJhIjoi',)),
    # providers of a third evaluation (scanner rule lists, partner lists)
    ("openshift-token", r"sha256~[A-Za-z0-9_-]{43,}", ('sha256~',)),
    ("scalingo-token", r"tk-us-(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{48,}", ('tk-us-',)),
    ("intra42-secret", r"s-s4t2(?:ud|af)-[a-fA-F0-9]{64}", ('s-s4t2',)),
    ("authress-key", r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}", ('.acc_', '.acc-')),
    ("infracost-key", r"ico-(?=[A-Za-z]*\d)[A-Za-z0-9]{32}(?![A-Za-z0-9])", ('ico-',)),
    ("maxmind-key", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9])", ('_mmk',)),
    ("yandex-key", r"AQVN[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])", ('AQVN',)),
    ("yandex-iam-token", r"t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86,}={0,2}", ('t1.',)),
    ("zoho-token", r"1000\.[a-f0-9]{32}\.[a-f0-9]{32}(?![a-f0-9])", ('1000.',)),
    ("ebay-secret", r"(?:PRD|SBX)-[a-f0-9]{12}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}(?![a-f0-9])", ('PRD-', 'SBX-')),
    ("woocommerce-key", r"c[ks]_[a-f0-9]{40}(?![A-Za-z0-9])", ('ck_', 'cs_')),
    ("artifactory-key", r"AKCp[A-Za-z0-9]{69,}", ('AKCp',)),
    ("youtrack-token", r"perm:[A-Za-z0-9+/=_-]{2,}\.[A-Za-z0-9+/=_-]{2,}\.[A-Za-z0-9]{20,}", ('perm:',)),
    ("segment-token", r"sgp_[A-Za-z0-9]{64}(?![A-Za-z0-9])", ('sgp_',)),
    ("databricks-secret", r"dose[a-f0-9]{32}(?![a-f0-9])", ('dose',)),
    ("defined-networking-key", r"dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}", ('dnkey-',)),
    ("devcycle-key", r"dvc_server_[0-9a-f]{8}[_-][0-9a-f]{4}[_-][0-9a-f]{4}[_-][0-9a-f]{4}[_-][0-9a-f]{12}(?:_[0-9a-f]{6,})?", ('dvc_server_',)),
    ("mercury-token", r"mercury_(?:production|sandbox)_[a-z]{3}_[A-Za-z0-9]{30,}_yrucrem", ('mercury_',)),
    ("midtrans-key", r"(?:SB-)?Mid-server-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}", ('Mid-server-',)),
    ("onfido-token", r"api_(?:live|sandbox)(?:_[a-z]{2})?\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{20,}", ('api_live', 'api_sandbox')),
    ("persona-key", r"persona_(?:production|sandbox)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ('persona_',)),
    ("unkey-key", r"unkey_(?=[A-Za-z]*\d)[A-Za-z0-9]{16,}", ('unkey_',)),
    ("lichess-token", r"lip_(?=[A-Za-z]*\d)[A-Za-z0-9]{20,}", ('lip_',)),
    ("wakatime-key", r"waka_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", ('waka_',)),
    ("pangea-token", r"pts_(?=[a-z]*\d)[a-z2-7]{32}(?![A-Za-z0-9])", ('pts_',)),
    ("deno-token", r"dd[pw]_(?=[A-Za-z]*\d)[A-Za-z0-9]{36,}", ('ddp_', 'ddw_')),
    ("stytch-secret", r"secret-(?:live|test)-(?=[A-Za-z0-9_=-]*\d)(?=[A-Za-z0-9_=-]*[A-Z])[A-Za-z0-9_=-]{36,}", ('secret-live-', 'secret-test-')),
    ("apify-token", r"apify_api_(?=[A-Za-z]*\d)[A-Za-z0-9]{36,}", ('apify_api_',)),
    ("arcgis-key", r"AAP[KTE][A-Za-z0-9_-]{80,}", ('AAPK', 'AAPT', 'AAPE')),
    ("pinterest-token", r"pina_(?=[A-Za-z]*\d)[A-Za-z0-9]{60,}", ('pina_',)),
    # PagerDuty REST API keys: "u+" and 18 to 20 characters, standing alone
    ("pagerduty-key", r"(?<![A-Za-z0-9+/=_-])u\+(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{18,20}(?![A-Za-z0-9+/=_-])", ('u+',)),
    # Bitwarden Secrets Manager: "0." + the access token's uuid + "." + secret ":" key
    ("bitwarden-token", r"0\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9]{20,}:[A-Za-z0-9+/]{20,}={0,2}", None),
    # Azure keys that carry a service's signature of four letters at a fixed place
    ("azure-key", r"[A-Za-z0-9_-]{52}AzFu[A-Za-z0-9_-]{5}==|[A-Za-z0-9]{52}(?:AzSe|AzCa|\+ASt|\+AEh|\+ACR|AZEG|AZSe|AIoT|AzMl|ACDb)[A-Za-z0-9]{28}", ('AzFu', 'AzSe', 'AzCa', '+ASt', '+AEh', '+ACR', 'AZEG', 'AZSe', 'AIoT', 'AzMl', 'ACDb')),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)?", ('eyJ',)),
]

# Each rule runs only when one of its trigger literals is in the text (a C
# substring search), so a string costs a few dozen ``in`` tests plus the
# rules that can match.  A rule with no literal (None) always runs and must
# be cheap to fail.
_VENDOR: list[tuple[str, LazyPattern, tuple[str, ...] | None]] = [
    (kind, lazy(pattern), triggers) for kind, pattern, triggers in VENDOR_RULES
]
# Discord bot tokens and Bitwarden access tokens have no literal of their
# own ("0." is everywhere); two dots six characters apart, or "0." and the
# start of a uuid, are the cheapest tests.
_DISCORD_HINT = lazy(r"\.[A-Za-z0-9_-]{6}\.|0\.[0-9a-f]{8}-[0-9a-f]{4}-")

# The rest of a token whose "+", "/" or "=" a URL spells %2B, %2F, %3D.
_PERCENT_TAIL = lazy(r"(?:%(?:2[BbFf]|3[Dd])[A-Za-z0-9_-]*)+")

_WORDCHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def starts_at_boundary(text: str, start: int) -> bool:
    """True when ``text[start]`` does not continue a word; a letter that ends
    a ``\\n``/``\\t``/``\\r`` escape counts as a boundary."""
    if start == 0:
        return True
    before = text[start - 1]
    if before not in _WORDCHAR:
        return True
    return start >= 2 and text[start - 2] == "\\" and before in "nrt"


_LITERALS = sorted({t for _, _, triggers in VENDOR_RULES if triggers for t in triggers}, key=len, reverse=True)
# One scan finds every trigger literal; a found literal also stands for the
# shorter triggers inside it ("sk-ant-admin" implies "sk-ant-").
_TRIGGER_SCAN = lazy("|".join(map(re.escape, _LITERALS)))
# The literals escaped for RE2 too (re.escape leaves letters, digits and "_"
# alone and puts a backslash before everything else: RE2 reads both the same).
_TRIGGER_FIND = Re2OrRe(_TRIGGER_SCAN.pattern, _TRIGGER_SCAN)
_BY_TRIGGER: dict[str, set[int]] = {}
for _index, (_, _, _triggers) in enumerate(VENDOR_RULES):
    for _trigger in _triggers or ():
        _BY_TRIGGER.setdefault(_trigger, set()).add(_index)
# The rules a found literal can start (its own and those of the triggers it
# implies), so a string costs a loop over the rules it may hold, not all;
# worked out for a literal when it is first found (few ever are).
_RULES_OF: dict[str, frozenset[int]] = {}


def _rules_of(literal: str) -> frozenset[int]:
    rules = _RULES_OF.get(literal)
    if rules is None:
        rules = _RULES_OF[literal] = frozenset().union(*(_BY_TRIGGER[t] for t in _LITERALS if t in literal))
    return rules


_UNTRIGGERED = frozenset(i for i, (_, _, triggers) in enumerate(VENDOR_RULES) if triggers is None)


# Every vendor token lies inside a run of token characters at least this
# long; looking for trigger literals only in such runs skips prose and code.
_TOKEN_RUN = lazy(r"[A-Za-z0-9_.+/=:~-]{20,}")


def token_runs(text: str) -> list[tuple[int, int]]:
    """Spans of the runs of token characters (>= 20) that vendor tokens and
    high-entropy strings can live in; computed once per string."""
    return [m.span() for m in _TOKEN_RUN.finditer(text)]


def vendor_spans(text: str, runs: list[tuple[int, int]] | None = None) -> Iterator[Span]:
    if runs is None:
        runs = token_runs(text)
    if not runs:
        return
    joined = "\n".join(text[s:e] for s, e in runs)
    chosen: set[int] = set()
    for literal in set(_TRIGGER_FIND.findall(joined)):
        chosen |= _rules_of(literal)
    if _DISCORD_HINT.search(joined) is not None:
        chosen |= _UNTRIGGERED
    if not chosen:
        return
    for index in sorted(chosen):  # in rule order: earlier rules win overlaps
        kind, pattern, _ = _VENDOR[index]
        for match in pattern.finditer(text):
            start, end = match.span()
            if kind != "telegram-bot-token" and not starts_at_boundary(text, start):
                continue  # (a bot token follows "bot" in API URLs)
            if kind == "jwt" and text.count(".", start, end) < 2:
                continue
            if text.startswith("%", end) and _PERCENT_TAIL.match(text, end):
                end = _PERCENT_TAIL.match(text, end).end()  # base64 "+/=" percent-encoded in a URL
            yield start, end, kind


# -- structural contexts ------------------------------------------------------

# (kind, pattern, trigger literals looked up in the lower-cased text)
CONTEXT_RULES: list[tuple[str, LazyPattern, tuple[str, ...]]] = [
    # A header on a line of its own (curl -v "> authorization: Token …",
    # an HTTP dump): the value is the rest of the line, so a quote, a comma or
    # a backslash inside a password does not end it early
    ("authorization", lazy(
        r"(?P<line>)(?:^|(?<=\n))(?:[<>] )?(?:proxy-)?authori[sz]ation:[ \t]*(?:bearer|basic|token|apikey|api-key|key)[ \t]+(?P<s>[^\s\"'$`\\][^\s]{7,199})(?=[ \t]*(?:\r?\n|$))"
    ), ("authori",)),
    # Authorization: Bearer xxx / Basic xxx / token xxx (also curl -v "> Authorization:")
    ("authorization", lazy(
        r"(?:proxy-)?authori[sz]ation\\?[\"']?\s*[:=]\s*\\?[\"']?\s*(?!digest\s)(?:(?:bearer|basic|token|bot|apikey|api-key|negotiate|sso-key|splunk|key|ssws|gitlab-token|dsn)\s+)?(?P<s>[^\s\"'`\\,]{8,})"
    ), ("authori",)),
    ("bearer-token", lazy(r"bearer\s+(?P<s>[a-z0-9._~+/=-]{16,})"), ("bearer",)),
    # HTTP Digest: the response is a hash of the password, open to a
    # dictionary attack; the other fields (username, realm, nonce) are kept
    ("authorization", lazy(r"digest\s[^\n]{0,600}?\bresponse\s*=\s*\\?\"?(?P<s>[0-9a-f]{32,128})"), ("response=",)),
    ("api-key-header", lazy(
        r"(?:x-[a-z0-9-]*(?:api-?key|token|secret|auth)[a-z0-9-]*|api-key|apikey|private-token|x-goog-api-key)\\?[\"']?\s*:\s*\\?[\"']?(?P<s>[^\s\"'`\\,]{8,})"
    ), ("api-key", "apikey", "-token", "-secret", "-auth", "private-token")),
    # scheme://user:password@host (password only; user and host are kept)
    ("url-password", lazy(r"://[^\s:/@\"'\\<>]*:(?P<s>[^\s@/\"'\\<>]{1,200})@(?=[a-z0-9\[.-])"), ("://",)),
    # a password holding "/" or "@" not percent-encoded (base64 keys, generated
    # passwords): it ends at the last "@" before a host name and its port or
    # path; a port ("host:8080/a@b") is not a password
    ("url-password", lazy(r"://[^\s:/@\"'\\<>]*:(?P<s>(?![0-9]{1,5}/)[^\s\"'\\<>]{1,200})@(?=[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+(?::[0-9]{1,5})?(?:[/?#\s\"'`]|$)|localhost\b)"), ("://",)),
    # credentials in query strings and form bodies
    ("url-token", lazy(
        r"[?&;](?:access_token|refresh_token|id_token|auth_token|token|api_key|apikey|api-key|key|secret|client_secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|code|auth|appid|jwt)=(?P<s>[^&\s\"'#\\<>]{6,})"
    ), ("token=", "key=", "secret=", "password=", "passwd=", "pwd=", "sig=", "signature=", "code=", "auth=", "appid=", "jwt=")),
    # other parameters named like a credential (app_key=, private_token=,
    # hapikey=, subscription-key=): the name must be a secret name
    ("url-token", lazy(
        r"[?&;](?P<n>[a-z0-9_-]{1,40}(?:token|key|secret|password|passwd))=(?P<s>[^&\s\"'#\\<>]{6,})"
    ), ("token=", "key=", "secret=", "password=", "passwd=")),
    ("azure-storage-key", lazy(r"(?:accountkey|sharedaccesskey|sharedaccesssignature|sig)=(?P<s>[a-z0-9+/%=_-]{16,})"), ("accountkey=", "sharedaccess", "sig=")),
    ("aws-signature", lazy(r"signature=(?P<s>[0-9a-f]{64})"), ("signature=",)),
    # curl -u user:pass, --user user:pass
    ("password", lazy(r"-(?:u|-user|-proxy-user)[ =]\\?[\"']?[^\s:\"']+:(?P<s>[^\s\"'\\]{3,})"), ("-u ", "-u=", "--user", "--proxy-user")),
    # mysql -pSECRET, --password=SECRET / --password SECRET, sshpass -p SECRET, docker login -p SECRET
    ("password", lazy(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"), ("mysql", "mariadb")),
    # a password fed on standard input: echo PW | sudo -S, docker login
    # --password-stdin <<< PW, echo PW | passwd --stdin
    ("password", lazy(
        r"\becho\s+(?:-[ne]\s+)?\\?[\"']?(?P<s>[^\s\"'\\|;&]{4,})\\?[\"']?\s*\|\s*(?:sudo\s+(?:-[a-z]+\s+)*-s\b|[^\n|;&]{0,120}?(?:--password-stdin|--stdin)\b)"
    ), ("-stdin", "| sudo", "|sudo")),
    ("password", lazy(r"(?:--password-stdin|\bsudo\s+(?:-[a-z]+\s+)*-s\b)[^\n|;&]{0,120}?<<<\s*\\?[\"']?(?P<s>[^\s\"'\\]{4,})"), ("<<<",)),
    # az login --service-principal -u APP -p SECRET
    ("password", lazy(r"\baz\s+login\b[^\n]{0,200}?\s-p\s+\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"), ("az login",)),
    # redis.conf and redis-cli: requirepass / masterauth PW, AUTH PW
    ("password", lazy(r"(?:^|(?<=\n)|(?<=\\n))[ \t]*(?:requirepass|masterauth)[ \t]+\\?[\"']?(?P<s>[^\s\"'\\]{4,})"), ("requirepass", "masterauth")),
    ("password", lazy(r"(?:\bredis-cli\b[^\n]{0,200}?\s|(?:^|\n)[^\n>]{0,40}>[ \t]*)auth[ \t]+(?:[a-z0-9_.-]+[ \t]+)?\\?[\"']?(?P<s>[^\s\"'\\]{6,})"), ("redis-cli", "> auth ")),
    # any long flag whose last word names a secret: --password, --db-password,
    # --with-token, --client-secret, --api-key (also fed by a here-string)
    ("password", lazy(r"--(?:[a-z0-9]+-){0,3}(?:password|passwd|pass|passphrase|token|secret|api-key|apikey|credentials?)[= ][ \t]*(?:<<<[ \t]*)?\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"),
     # every match holds "-NOUN" then "=" or " "
     ("-password", "-passwd", "--pass=", "--pass ", "-passphrase", "-token=", "-token ", "-secret=", "-secret ", "-api-key", "-apikey", "-credential")),
    # single-dash password options (influx -password, keytool -storepass,
    # openssl -passin pass:X): a value with a digit or a symbol
    ("password", lazy(r"(?<![a-z0-9-])-(?:password|passwd|storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass|passin|passout)[= ][ \t]*\\?[\"']?(?:pass:)?(?P<s>(?=[^\s\"'\\]*[0-9!@#$%^&*])[^\s\"'\\-][^\s\"'\\]{2,})"),
     ("-password", "-passwd", "-storepass", "-keypass", "-passin", "-passout")),
    # database clients whose password flag is a short option
    ("password", lazy(
        r"\b(?:(?:redis|keydb|valkey)-cli\b[^\n|;&]{0,200}?\s-a|(?:mongo(?:sh|dump|restore|export|import)?|cqlsh)\b[^\n|;&]{0,200}?\s-p|"
        r"(?:sqlcmd|bcp|isql|osql)\b[^\n|;&]{0,200}?\s-p)[ =]?\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"
    ), ("redis-cli", "keydb-cli", "valkey-cli", "mongo", "cqlsh", "sqlcmd", "bcp", "isql", "osql")),
    # secret stores set from the command line: gh secret set NAME --body V,
    # az keyvault secret set --value V, aws secretsmanager --secret-string V,
    # aws ssm put-parameter --value V
    # (each command's own value option: -b is gh's, and a branch elsewhere)
    ("secret-value", lazy(
        r"(?:\bsecrets? set\b[^\n|;&]{0,200}?\s(?:--body|-b)|(?:\bkeyvault\b|\bsecretsmanager\b|\bput-parameter\b)[^\n|;&]{0,200}?\s(?:--value|--secret-string))"
        r"[= ][ \t]*\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"
    ), ("secret set", "secrets set", "keyvault", "secretsmanager", "put-parameter")),
    # CLI settings stored by a "config set NAME VALUE" command (npm, yarn,
    # pnpm, aws configure set, poetry config) when NAME names a credential
    ("config-value", lazy(
        r"\b(?:config(?:ure)? set|poetry config)\s+(?:--[a-z-]+\s+)*(?P<n>[^\s=\"']+)[ =][ \t]*\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"
    ), ("config set", "configure set", "poetry config")),
    # ngrok config add-authtoken VALUE, ngrok authtoken VALUE
    ("token", lazy(r"\bngrok\b[^\n|;&]{0,40}?\s(?:add-)?authtoken\s+\\?[\"']?(?P<s>[a-z0-9_]{20,})"), ("authtoken",)),
    # passwords given to archivers and key tools as a short option:
    # zip -P X, 7z a -pX, openssl enc -k X, ssh-keygen -N X (case checked in
    # Python), after the command's other options; each tool's own letter
    # (openssl's -k a word of its own: -kfile, -keyout are other options)
    ("password", lazy(
        r"(?:(?<![\w.-])zip(?=\s)[^\n|;&]{0,200}?\s-(?=p)|\b7z [ax]\b[^\n|;&]{0,200}?\s-(?=p)|\bopenssl\b[^\n|;&]{0,200}?\s-(?=k\s)|\bssh-keygen\b[^\n|;&]{0,200}?\s-(?=n))"
        r"(?P<f>[pkn])[ ]?\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{2,})"
    ), ("zip ", "7z ", "openssl", "ssh-keygen")),
    # prose naming the variable and its value in code spans: "I set
    # `DB_PASSWORD` to `…`", "`API_KEY` is now `…`"
    ("named-value", lazy(r"`(?P<n>[a-z0-9_.-]{2,60})`\s+(?:to|=|is(?:\s+now)?|as)\s+`(?P<s>[^`\s]{6,200})`"),
     ("` to `", "` is `", "` = `", "` as `")),
    # ~/.pgpass: host:port:database:user:password
    # (also as a Read result's numbered line or a patch's added line); the
    # port PostgreSQL's (5xxx, PgBouncer's 6432) or any, so that grep -n's
    # file:line:text lines are not taken for one
    ("password", lazy(
        r"(?:^|(?<=\n)|(?<=\\n))(?:\+|[ \t]*\d+(?:\u2192|\t))?[a-z0-9.*_-]+:(?:5\d{3}|6432|\*):[^:\s\\]+:[^:\s\\]+:(?P<s>[^\s\\]{3,})"
    ), (":5432:", ":*:")),
    # poetry config http-basic.REPO USER PASSWORD
    ("password", lazy(r"\bpoetry config\s+http-basic\.[a-z0-9_.-]+\s+[^\s\"']+\s+\\?[\"']?(?P<s>[^\s\"'\\]{3,})"), ("poetry config",)),
    ("password", lazy(r"sshpass\s+-p\s*\\?[\"']?(?P<s>[^\s\"'\\]{3,})"), ("sshpass",)),
    ("password", lazy(r"\b(?:docker|podman|helm|oras|skopeo)\b[^\n]{0,80}?\slogin\b[^\n]{0,200}?\s-p\s+\\?[\"']?(?P<s>[^\s\"'\\]{3,})"), (" login",)),
    # prose: "the password is X" (a value with a digit or a symbol, not a word)
    ("password", lazy(r"\bpass(?:word|phrase|wd|code)\s+(?:is|was|will be|=)\s*:?\s*[\"'`]?(?P<s>(?=[^\s\"'`]*[0-9!@#$%^&*])[^\s\"'`]{6,64}?)[\"'`]?(?=[\s.,;)]|$)"),
     ("password is", "password was", "password will", "password =", "passphrase is", "passcode is", "passwd is")),
    # ~/.netrc: machine host login user password secret
    ("password", lazy(r"login\s+\S+\s+password\s+(?P<s>[^\s\"'\\]+)"), ("login",)),
    # wpa_supplicant.conf psk="passphrase" (8 to 63 characters, spaces
    # allowed) or psk=64 hex digits; hostapd's wpa_passphrase= and
    # sae_password=; each at the start of its line
    ("password", lazy(r"(?:^|(?<=\n)|(?<=\\n))[ \t]*(?:psk|wpa_passphrase|sae_password)=\\?\"(?P<s>[^\"\\\n]{8,63})\\?\""),
     ("psk=", "wpa_passphrase=", "sae_password=")),
    ("password", lazy(r"(?:^|(?<=\n)|(?<=\\n))[ \t]*(?:psk|wpa_passphrase|sae_password)=(?!\\?\")(?P<s>[^\s\"'\\]{8,64})"),
     ("psk=", "wpa_passphrase=", "sae_password=")),
    # nmcli device wifi connect SSID password X, nmcli con modify NAME wifi-sec.psk X
    ("password", lazy(
        r"\bnmcli\b[^\n|;&]{0,200}?\s(?:password|(?:wifi-sec|802-11-wireless-security)\.(?:psk|wep-key0|leap-password)|802-1x\.password)"
        r"\s+\\?[\"']?(?P<s>[^\s\"'\\-][^\s\"'\\]{3,})"
    ), ("nmcli",)),
    # a password option and its value as two items of a JSON or Python
    # argument list (a tool call's args, subprocess.run([...])):
    # "--password", "VALUE"; a value of ten characters or with a digit or a
    # symbol (not the word after a flag that takes none: --no-password)
    ("password", lazy(
        r"\\{0,3}[\"']--(?!no-|ask-|prompt-|skip-|reset-|change-|forgot-|show-)(?:[a-z0-9]+-){0,3}(?:password|passwd|pass|passphrase|token|secret|api-key|apikey)"
        r"\\{0,3}[\"']\s*,\s*\\{0,3}[\"'](?=[^\"'\\]{10}|[^\"'\\]*[0-9!@#$%^&*+=~?])(?P<s>[^\s\"'\\-][^\"'\\]{2,})"
    ), ("-password", "-passwd", "-passphrase", "-pass\"", "-pass'", "-pass\\", "-token\"", "-token'", "-token\\",
        "-secret\"", "-secret'", "-secret\\", "-api-key", "-apikey")),
    # "-p", "VALUE" after a tool whose -p is a password (mysql, sshpass, a
    # "login" subcommand) in the same argument list; a value of eight
    # characters or with a digit or a symbol (gh auth login -p https: a protocol)
    ("password", lazy(
        r"\\{0,3}[\"'](?:mysql|mysqldump|mysqladmin|mariadb|sshpass|mongosh|mongo|mongodump|mongorestore|cqlsh|sqlcmd|login)\\{0,3}[\"']"
        r"[^\]\n]{0,200}?\\{0,3}[\"']-p\\{0,3}[\"']\s*,\s*\\{0,3}[\"'](?=[^\"'\\]{8}|[^\"'\\]*[0-9!@#$%^&*+=~?])(?P<s>[^\s\"'\\-][^\"'\\]{2,})"
    ), ("\"-p\"", "'-p'", "-p\\")),
    # helm --set NAME=VALUE whose value starts with "=" (NAME==VALUE: in
    # code that is a comparison, after --set a value)
    ("config-value", lazy(r"--set(?:-string|-literal)?[ =]\\?[\"']?(?P<n>[a-z0-9_.\[\]-]{1,80})=(?P<s>=[^\s\"'\\,]{3,})"), ("--set",)),
    # Dropbox long-lived tokens (eleven characters, "AAAAAAAAAA", 43 more:
    # the capitals checked in Python) after the word "dropbox" on the line;
    # alone, base64 data holds this shape too often
    ("dropbox-token", lazy(r"dropbox[^\n]{0,60}?(?<![a-z0-9+/_-])(?P<s>[a-z0-9]{11}aaaaaaaaaa[a-z0-9_=-]{43})(?![a-z0-9+/_=-])"), ("dropbox",)),
    # account recovery and backup codes listed after "recovery codes ...:"
    # (GitHub's 5+5 hex, Google's 8 digits, other sites' groups): the lead-in
    # here, the codes in recovery_codes()
    ("recovery-code", lazy(r"\b(?:recovery|backup|2fa|mfa)[ _-]codes?\b[^\n:]{0,80}?:"), ("recovery code", "backup code", "2fa code", "mfa code", "recovery_code", "backup_code")),
    ("docker-auth", lazy(r"\.dockerconfigjson\\?[\"']?\s*:\s*\\?[\"']?(?P<s>[a-z0-9+/=]{20,})"), (".dockerconfigjson",)),
]
CONTEXT_TRIGGERS = tuple(sorted({t for _, _, triggers in CONTEXT_RULES for t in triggers}))
_trigger_set = None  # the RE2 Set of CONTEXT_TRIGGERS, built on first use (False: not available)


# Below this length the substring tests cost less than encoding the text
# for the set (and most runs never build the set).
_SET_MIN = 2048


def context_triggers(lower: str) -> set[str]:
    """The trigger literals of :data:`CONTEXT_RULES` found in ``lower``: for
    a long text, one pass of an RE2 set (every literal that occurs,
    overlapping or not) when google-re2 is installed; else one substring
    test per literal."""
    global _trigger_set
    if len(lower) < _SET_MIN:
        return {t for t in CONTEXT_TRIGGERS if t in lower}
    if _trigger_set is None:
        _trigger_set = _build_trigger_set()
    if _trigger_set:
        try:
            hits = _trigger_set(lower.encode())
        except Exception:  # a lone surrogate: the substring tests below
            hits = None
        if hits is not None:
            return {CONTEXT_TRIGGERS[i] for i in hits}
    return {t for t in CONTEXT_TRIGGERS if t in lower}


def _build_trigger_set():
    try:
        import re2
    except ImportError:
        return False
    try:
        patterns = re2.Set.SearchSet(re2.Options())
        for trigger in CONTEXT_TRIGGERS:
            patterns.Add(re.escape(trigger))
        patterns.Compile()
    except Exception:  # an older or broken binding: substring tests
        return False
    return getattr(getattr(patterns, "_set", None), "Match", None) or patterns.Match


# Rules whose match must start a word (checked in Python: a leading
# lookbehind would stop the regex engine from skipping ahead to a literal).
_WORD_START = frozenset(("authorization", "bearer-token", "api-key-header", "azure-storage-key"))
_SPACE_START = frozenset(("password",))


def context_spans(text: str, lower: str, present: set[str]) -> Iterator[Span]:
    """Matched on ``lower`` (``text`` with ASCII letters lower-cased, same
    length); spans index both.  ``present`` holds the trigger literals found
    in ``lower`` (see :data:`LOWER_TRIGGERS`)."""
    for kind, pattern, triggers in CONTEXT_RULES:
        if present.isdisjoint(triggers):
            continue
        for match in pattern.finditer(lower):
            at = match.start()
            if at and kind in _WORD_START and lower[at - 1].isalnum():
                continue
            if at and kind in _SPACE_START and lower[at] == "-" and not lower[at - 1].isspace():
                continue
            if kind == "url-password" and not (at and lower[at - 1].isalpha()):
                continue
            if kind == "named-value" and (keywords.is_placeholder(text[match.start("s") : match.end("s")]) or _setting_word(match.group("s"))):
                continue  # `API_KEY` to `<your key>`, `password_hash` to `bcrypt`: a setting, not a value
            if match.re.groupindex.get("n") and not _named_secret(match.group("n"), text[match.start("s") : match.end("s")]):
                continue  # page_token=, idempotency_key=, "config set key value": not credentials
            if match.re.groupindex.get("f") and text[match.start("f")] != _FLAG_CASE[lower[match.start() : match.start() + 2]]:
                continue  # unzip -p (to a pipe), ssh-keygen -n (principals): not passwords
            if kind == "recovery-code":
                yield from recovery_codes(text, match.end())
                continue
            if kind == "dropbox-token" and text[match.start("s") + 11 : match.start("s") + 21] != "AAAAAAAAAA":
                continue
            start, end = match.span("s")
            # a stored setting is tagged by what its name says (password, token, ...)
            named = keywords.kind_for_name(_last_part(match.group("n"))) if kind in ("config-value", "named-value") else kind
            # (a value that runs to a real end of line holds no escape)
            yield start, end if "line" in match.re.groupindex else _trim_escape(text, start, end), named


# One recovery code (a word with a digit: GitHub's "a1b2c-3d4e5", Google's
# "1234 5678", "ABCD-EFGH-1234") and what may come between two: spaces,
# escaped newlines, commas, list markers.
_RECOVERY_CODE = lazy(r"[0-9]{4} [0-9]{4}(?![A-Za-z0-9])|[A-Za-z0-9]{4,16}(?:-[A-Za-z0-9]{3,16}){0,3}(?![A-Za-z0-9-])")
_CODE_GAP = lazy(r"(?:\s|\\[nrt]|[,;]|(?<![^\s\\n])(?:[-*\u2022]|[0-9]{1,2}[.)])(?=[ \t]))*")
_MAX_CODES = 32


def recovery_codes(text: str, at: int) -> Iterator[Span]:
    """The codes listed from ``at`` on, until the first word that is not a
    code: words of six or more characters with a digit."""
    for _ in range(_MAX_CODES):
        at = _CODE_GAP.match(text, at).end()
        match = _RECOVERY_CODE.match(text, at)
        if match is None:
            return
        code = match.group()
        if len(code) < 6 or not any(c.isdigit() for c in code):
            return
        yield at, match.end(), "recovery-code"
        at = match.end()


# The password option of each tool of the archiver rule, by the tool's first letters.
_FLAG_CASE = {"zi": "P", "7z": "p", "op": "k", "ss": "N"}


def _setting_word(value: str) -> bool:
    """A value with no digit that reads as words (``bcrypt``,
    ``oauth-pkce``, ``ReadWrite``): a setting named in prose."""
    return not any(c.isdigit() for c in value) and keywords.is_wordy(value)


def _named_secret(name: str, value: str) -> bool:
    """Whether ``value`` under ``name`` is a credential: a secret name, or a
    name with only "key" in it and a random-looking value."""
    name_class = keywords.classify_name(_last_part(name))
    return name_class == "strong" or (name_class == "weak" and keywords.looks_random(value, min_length=12))


def _last_part(name: str) -> str:
    """``//registry.npmjs.org/:_authToken`` -> ``_authToken``, ``pypi-token.pypi`` -> ``pypi-token``."""
    for cut in ("/:", ":"):
        if cut in name:
            name = name.rsplit(cut, 1)[1]
    if name.count(".") == 1 and not name.endswith("."):
        head, tail = name.split(".")
        return head if keywords.classify_name(head) else tail
    return name.rsplit(".", 1)[-1]


def _trim_escape(text: str, start: int, end: int) -> int:
    """End a value before a literal ``\\n``/``\\t``/``\\r``/``\\"`` escape."""
    cut = text.find("\\", start, end)
    return end if cut < 0 else max(cut, start + 1)


def private_key_spans(text: str) -> Iterator[Span]:
    if "PRIVATE KEY" in text:
        found = []
        for match in PRIVATE_KEY_BLOCK.finditer(text):
            found.append(match.span())
            yield match.start(), match.end(), "private-key"
        if "-----END" in text:
            yield from _headless_key_spans(text, found)
        if "---- BEGIN SSH2" in text:
            for match in SSH2_KEY.finditer(text):
                yield match.start(), match.end(), "private-key"
    if "PuTTY-User-Key-File" in text:
        for match in PUTTY_KEY.finditer(text):
            yield match.start(), match.end(), "private-key"
    if "LS0tLS1CRUdJTi" in text:
        for match in BASE64_PEM.finditer(text):
            if base64_pem_is_private(match.group()):
                yield match.start(), match.end(), "private-key"


# Cookie: a=1; b=2 / Set-Cookie: a=1; Path=/ / curl -b 'a=1' / --cookie
_COOKIE_HEADER = lazy(r"(?:(?<![a-z0-9_-])(?:set-)?cookie\\?[\"']?\s*:|\bcurl\b[^\n]{0,300}?\s(?:-b|--cookie)(?:\s+|=))\s*\\?[\"']?")
_COOKIE_ATTRIBUTES = frozenset("path domain expires max-age samesite secure httponly priority partitioned version comment".split())
_PLAIN_VALUE = lazy(r"^(?:[a-z]{1,12}|[0-9]{1,6}|true|false|yes|no|[a-z]{2}(?:[-_][a-z]{2})?)$", re.I)


def cookie_spans(text: str, lower: str) -> Iterator[Span]:
    """The value of every name=value pair of a cookie header or a curl
    cookie argument, except attributes (Path, Expires, ...) and plain
    settings (theme=dark, lang=en)."""
    for header in _COOKIE_HEADER.finditer(lower):
        at = header.end()
        stop = at
        while stop < len(text) and text[stop] not in "\n\"'`" and not text.startswith(("\\n", "\\\""), stop):
            stop += 1
        position = at
        for pair in text[at:stop].split(";"):
            start = position
            position += len(pair) + 1
            name, eq, value = pair.partition("=")
            if not eq:
                continue
            name = name.strip()
            vstart = start + pair.index("=") + 1
            vstart += len(value) - len(value.lstrip(" \t"))
            value = value.strip()
            if name.lower() in _COOKIE_ATTRIBUTES or len(value) < 6 or _PLAIN_VALUE.match(value):
                continue
            yield vstart, vstart + len(value), "cookie"


def _headless_key_spans(text: str, found: list[tuple[int, int]]) -> Iterator[Span]:
    """A key body and its END line with no BEGIN line before them: the
    rest of a key split over several chunks of tool output."""
    for match in _KEY_END.finditer(text):
        end = match.end()
        if any(s <= match.start() < e for s, e in found):
            continue
        start = match.start()
        while start > 0 and text[start - 1] in _BODY_CHARS:
            start -= 1
        # the first line may be a word that only looks like base64
        # (output before the key): a key body line is long
        while start < match.start():
            cut = _line_end(text, start, match.start())
            if cut - start >= 16 or cut >= match.start():
                break
            start = cut
            while start < match.start() and (text[start] in " \t\r\n" or text.startswith(("\\n", "\\r"), start)):
                start += 2 if text[start] == "\\" else 1
        yield start, end, "private-key"


def _line_end(text: str, start: int, limit: int) -> int:
    """Where the line starting at ``start`` ends (a newline, real or escaped)."""
    for at in range(start, limit):
        if text[at] in "\r\n" or (text[at] == "\\" and text[at + 1 : at + 2] in ("n", "r")):
            return at
    return limit


def public_block_spans(text: str) -> Iterator[tuple[int, int]]:
    if "-----BEGIN " in text:
        for match in PUBLIC_BLOCK.finditer(text):
            yield match.span()
