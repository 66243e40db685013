"""A webhook receiver for the tests: verifies every delivery with the official Standard Webhooks library
(`standardwebhooks` from PyPI) and answers as the test scripts it.

Usage: python receiver.py <secret>[,<secret>...]   (prints its port, then serves on 127.0.0.1)
  POST /script   a JSON list of [status, {headers}, delay_seconds] answers for the next deliveries (then 200s)
  GET  /received every delivery so far: {"id", "verified", "status", "payload", "at"}
  POST anything else: a delivery (answered 401 when no secret verifies it)
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

SECRETS = sys.argv[1].split(",")
LOCK = threading.Lock()
SCRIPT = []
RECEIVED = []


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/script":
            with LOCK:
                SCRIPT.extend(json.loads(body))
            return self.answer(200, {}, {})
        headers = {key.lower(): value for key, value in self.headers.items()}
        verified = False
        for secret in SECRETS:
            try:
                Webhook(secret).verify(body, headers)
                verified = True
                break
            except WebhookVerificationError:
                pass
        with LOCK:
            status, extra, delay = SCRIPT.pop(0) if SCRIPT else (200, {}, 0)
        if delay:
            time.sleep(delay)
        status = status if verified else 401
        with LOCK:
            RECEIVED.append(
                {
                    "id": headers.get("webhook-id"),
                    "verified": verified,
                    "status": status,
                    "payload": json.loads(body),
                    "at": time.time(),
                }
            )
        self.answer(status, {"ok": status < 300}, extra)

    def do_GET(self):
        with LOCK:
            received = list(RECEIVED)
        self.answer(200, received, {})

    def answer(self, status, body, headers):
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
