"""A minimal MCP stdio client: MCP's stdio transport as its specification defines it, newline-delimited
JSON-RPC 2.0 on the server's stdin and stdout (the `mcp` package from PyPI is not reachable here).
It starts the server, does initialize, tools/list and a run_code call, and fails on anything on stdout
that is not one JSON-RPC message a line.

Usage: python3 stdio_client.py LABEL COMMAND [ARGS...]   (the environment is passed on to the server)
Prints "ok LABEL <step>" per step and "all LABEL checks passed"; exits 1 on the first failure.
StdioServerIT runs it.
"""
import json
import subprocess
import sys
import threading


class StdioClient:
    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr)
        self.next_id = 0
        self.notifications = []

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self.process.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError("the server closed stdout before answering %s" % method)
            answer = json.loads(line)  # anything that is not one JSON document a line fails here
            assert answer.get("jsonrpc") == "2.0", line
            if "method" in answer and "id" not in answer:
                self.notifications.append(answer)
            elif answer.get("id") == self.next_id:
                if "error" in answer:
                    raise AssertionError("%s failed: %s" % (method, answer["error"]))
                return answer["result"]
            else:
                raise AssertionError("unexpected message: %s" % line)

    def notify(self, method):
        self.send({"jsonrpc": "2.0", "method": method})

    def close(self):
        self.process.stdin.close()
        rest = self.process.stdout.read()
        code = self.process.wait(timeout=120)
        for line in rest.splitlines():
            json.loads(line)
        return code


def main():
    label, argv = sys.argv[1], sys.argv[2:]
    client = StdioClient(argv)
    timer = threading.Timer(300, client.process.kill)
    timer.start()
    try:
        result = client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                               "clientInfo": {"name": "python-stdio-check", "version": "1"}})
        assert "tools" in result["capabilities"], result
        client.notify("notifications/initialized")
        print("server %s %s" % (label, result["serverInfo"]["name"]), flush=True)
        print("ok %s initialize" % label, flush=True)
        tools = [tool["name"] for tool in client.request("tools/list")["tools"]]
        assert "run_code" in tools, tools
        print("ok %s tools/list" % label, flush=True)
        result = client.request("tools/call", {"name": "run_code",
                                               "arguments": {"language": "python", "code": "print('py-' + str(6 * 7))"}})
        text = "".join(c["text"] for c in result["content"] if c["type"] == "text")
        assert result["isError"] is False, text
        assert "py-42" in text, text
        print("ok %s run_code" % label, flush=True)
        code = client.close()
        assert code == 0, "the server exited %d" % code
        print("all %s checks passed" % label, flush=True)
    finally:
        timer.cancel()


if __name__ == "__main__":
    main()
