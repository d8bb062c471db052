#!/usr/bin/env python3
"""tests/tools/http_sink.py: a tiny HTTP server for notification tests, on 127.0.0.1.

Usage: http_sink.py MODE DIR [SECONDS]
  MODE  ok (answer 200), fail (answer 500) or hang (read the request, never answer)
  DIR   where to write: port (the ephemeral port, once listening), hits (one line per
        request), body.N (the body of request N)
It exits by itself after SECONDS (default 60), so a test that forgets it leaks nothing.
"""
import http.server
import os
import sys
import threading
import time

mode, out = sys.argv[1], sys.argv[2]
life = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
lock = threading.Lock()
count = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with lock:
            count[0] += 1
            k = count[0]
            with open(os.path.join(out, "body.%d" % k), "wb") as f:
                f.write(body)
            with open(os.path.join(out, "hits"), "a") as f:
                f.write("%s %s\n" % (self.path, self.headers.get("Content-Type", "")))
        if mode == "hang":
            time.sleep(life)
            return
        code = 200 if mode == "ok" else 500
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok" if code == 200 else b"no")

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
threading.Timer(life, srv.shutdown).start()
srv.serve_forever()
