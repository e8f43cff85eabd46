#!/usr/bin/env python3
"""A minimal client for `attachkit serve`: spawn the worker once, send JSON Lines requests,
match responses by id (they may come back out of order). Standard library only.

    python3 deploy/examples/serve_client.py ./.build/release/attachkit TestMedia /tmp/out
"""
import json
import os
import subprocess
import sys


def main(attachkit, media, out):
    os.makedirs(out, exist_ok=True)
    worker = subprocess.Popen(
        [attachkit, "serve", "--allow", media, "--allow", out, "--jobs", "2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    requests = {}
    for i, name in enumerate(sorted(os.listdir(os.path.join(media, "images")))[:5]):
        path = os.path.abspath(os.path.join(media, "images", name))
        request = {"id": i, "op": "prepare", "path": path,
                   "options": {"out": os.path.abspath(out), "profile": "ios", "maxBytes": 1000000}}
        requests[i] = name
        worker.stdin.write(json.dumps(request) + "\n")
    worker.stdin.close()                      # EOF: the worker drains and exits 0
    for line in worker.stdout:
        response = json.loads(line)
        name = requests.pop(response["id"])
        if response["ok"]:
            result = response["result"]
            print(f"{name}: {result['action']} -> {result['output']} ({result['uti']})")
        else:
            print(f"{name}: {response['error']['code']}: {response['error']['message']}")
    assert not requests, f"unanswered: {requests}"
    return worker.wait()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
