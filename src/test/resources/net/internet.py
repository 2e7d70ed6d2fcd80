"""The servers of the tests' own internet (dev.nixexec.testing.TestInternet), run in the network
namespaces the test made: `inet` answers HTTP on port 8000 of every address it has, echoes UDP on
port 7007 and answers DNS for *.example.test; `egress` answers HTTP on its loopback only."""
import socket
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/bytes/"):
            # a bulk download for the network benchmark
            size = int(self.path[len("/bytes/"):])
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b"x" * 65536
            while size > 0:
                self.wfile.write(chunk[:size])
                size -= len(chunk)
            return
        body = ("hello from %s\n" % self.connection.getsockname()[0]).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def bound_udp(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    return s


def udp_echo(s):
    while True:
        data, peer = s.recvfrom(2048)
        s.sendto(data.upper(), peer)


def dns(s, answer):
    while True:
        query, peer = s.recvfrom(2048)
        ident, _, qdcount = struct.unpack("!HHH", query[:6])
        i, labels = 12, []
        while query[i]:
            labels.append(query[i + 1:i + 1 + query[i]].decode())
            i += 1 + query[i]
        qtype = struct.unpack("!H", query[i + 1:i + 3])[0]
        question = query[12:i + 5]
        name = ".".join(labels).lower()
        if name.endswith("example.test") and qtype == 1:
            header = struct.pack("!HHHHHH", ident, 0x8180, 1, 1, 0, 0)
            record = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(answer)
            s.sendto(header + question + record, peer)
        else:
            # NOERROR, no answer for other types of a known name (AAAA); NXDOMAIN otherwise
            rcode = 0x8180 if name.endswith("example.test") else 0x8183
            s.sendto(struct.pack("!HHHHHH", ident, rcode, 1, 0, 0, 0) + question, peer)


if __name__ == "__main__":
    role = sys.argv[1]
    if role == "inet":
        # bound here, before "ready"
        threading.Thread(target=udp_echo, args=(bound_udp(7007),), daemon=True).start()
        threading.Thread(target=dns, args=(bound_udp(53), sys.argv[2]), daemon=True).start()
        server = ThreadingHTTPServer(("0.0.0.0", 8000), Hello)
    else:
        server = ThreadingHTTPServer(("127.0.0.1", 8000), Hello)
    print("ready", flush=True)
    server.serve_forever()
