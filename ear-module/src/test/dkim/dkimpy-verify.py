"""Verifies every DKIM signature of the message on standard input with dkimpy (Debian python3-dkim), an
implementation that shares no code with Apache James jDKIM, the library the queue signs with.

Usage: dkimpy-verify.py DNS-NAME RECORD < message

The key record is the one given, for DNS-NAME only (selector._domainkey.domain); no DNS is asked. Prints one line
per signature, "pass <d>/<s>" or "fail <d>/<s>: <reason>", then dkimpy's log. Exit status: 0 when there is at least one
signature and every one verifies, 1 when one fails, 2 when there is none.
"""
import io
import logging
import sys

import dkim

name, record = sys.argv[1].rstrip('.').lower(), sys.argv[2].encode('ascii')
message = sys.stdin.buffer.read()
log_text = io.StringIO()
logger = logging.getLogger('dkimpy-verify')
logger.addHandler(logging.StreamHandler(log_text))
logger.setLevel(logging.DEBUG)


def txt(qname, timeout=5):
    asked = (qname.decode('ascii') if isinstance(qname, bytes) else qname).rstrip('.').lower()
    return record if asked == name else None


verifier = dkim.DKIM(message, logger=logger)
count = sum(1 for field, _ in verifier.headers if field.lower() == b'dkim-signature')
failed = 0
for index in range(count):
    try:
        ok, reason = verifier.verify(idx=index, dnsfunc=txt), 'see the log'
    except dkim.DKIMException as e:  # dkimpy raises some failures (a body hash mismatch) instead of answering False
        ok, reason = False, str(e)
    tags = verifier.signature_fields or {}
    where = (tags.get(b'd', b'?') + b'/' + tags.get(b's', b'?')).decode('ascii', 'replace')
    print('pass ' + where if ok else 'fail ' + where + ': ' + reason)
    failed += 0 if ok else 1
print(log_text.getvalue().strip())
sys.exit(2 if count == 0 else (1 if failed else 0))
