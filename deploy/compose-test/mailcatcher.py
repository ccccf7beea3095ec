"""Stand-in for Mailpit: SMTP on 0.0.0.0:1025, each message written to
/mail/<time>-<n>.eml with its text parts decoded (8bit, as Mailpit's UI shows
them; the service sends quoted-printable over SMTP), so that README's first
session finds the verification link in it as it does in the .eml files the
service writes itself when SMTP_URL is unset."""

import email
import email.policy
import os
import time

from aiosmtpd.controller import Controller

MAIL_DIR = os.environ.get("MAIL_DIR", "/mail")


def decoded(raw: bytes) -> bytes:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    for part in message.walk():
        if part.get_content_maintype() == "text":
            text = part.get_content()
            del part["Content-Transfer-Encoding"]
            part.set_payload(text.encode("utf-8"), None)
            part["Content-Transfer-Encoding"] = "8bit"
    return message.as_bytes(policy=email.policy.default.clone(cte_type="8bit", max_line_length=None))


class Catcher:
    count = 0

    async def handle_DATA(self, server, session, envelope):
        Catcher.count += 1
        name = f"{time.time_ns()}-{Catcher.count}.eml"
        partial = os.path.join(MAIL_DIR, "." + name)
        with open(partial, "wb") as out:
            out.write(decoded(envelope.original_content or envelope.content))
        os.replace(partial, os.path.join(MAIL_DIR, name))
        print(f"caught {name} for {', '.join(envelope.rcpt_tos)}", flush=True)
        return "250 Message accepted for delivery"


os.makedirs(MAIL_DIR, exist_ok=True)
controller = Controller(Catcher(), hostname="0.0.0.0", port=1025)
controller.start()
print("mail catcher on :1025", flush=True)
while True:
    time.sleep(3600)
