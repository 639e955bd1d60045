"""A stdio relay that records the wire: `python tap.py LOG -- PROGRAM ARGS...`.

The SDK under test starts this script as its "server"; the script starts PROGRAM (janus serve),
copies bytes both ways unchanged, and appends every complete line to LOG:
`C <line>` for client to server, `S <line>` for server to client, and at the end
`X <exit code of PROGRAM>` (negative: killed by that signal).
When the client closes its end, PROGRAM's input is closed; the relay exits with PROGRAM's code.
Standard library only: it runs under any Python 3.
"""

import os
import signal
import subprocess
import sys
import threading

CHUNK = 1 << 16


class Log:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.lock = threading.Lock()

    def line(self, tag, data):
        with self.lock:
            self.f.write(tag + b" " + data + b"\n")
            self.f.flush()

    def close(self):
        with self.lock:
            self.f.close()


def pump(src_fd, dst, tag, log, on_eof):
    """Copies src_fd to dst (a writable binary file), logging complete lines."""
    pending = b""
    try:
        while True:
            chunk = os.read(src_fd, CHUNK)
            if not chunk:
                break
            # Lines are logged before they are passed on, so the log keeps the order in which
            # each side could have seen them.
            pending += chunk
            while True:
                nl = pending.find(b"\n")
                if nl < 0:
                    break
                log.line(tag, pending[:nl])
                pending = pending[nl + 1 :]
            try:
                dst.write(chunk)
                dst.flush()
            except (BrokenPipeError, OSError):
                break
    finally:
        if pending:
            log.line(tag + b"!", pending)  # bytes without a final newline
        on_eof()


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write("usage: tap.py LOG -- PROGRAM ARGS...\n")
        return 2
    log = Log(args[0])
    child = subprocess.Popen(args[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)

    def close_child_stdin():
        try:
            child.stdin.close()
        except OSError:
            pass

    stdout = os.fdopen(1, "wb", buffering=0, closefd=False)
    to_server = threading.Thread(
        target=pump, args=(0, child.stdin, b"C", log, close_child_stdin), daemon=True
    )
    to_client = threading.Thread(
        target=pump, args=(child.stdout.fileno(), stdout, b"S", log, lambda: None)
    )
    to_server.start()
    to_client.start()
    code = child.wait()
    to_client.join()
    log.line(b"X", str(code).encode())
    log.close()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
