"""A TLS client for HttpsAndMutualTlsTest: Python's ssl module, verifying the server's certificate.

Usage: tls_client.py HOST PORT CAFILE|- CERT|- KEY|- TOKEN|- METHOD PATH [BODY|-] ...
Several METHOD PATH BODY triples go over one keep-alive connection. Prints one JSON line per
request: {"status": N, "body": "..."}, or {"error": "..."} when the connection fails.
"""
import http.client
import json
import ssl
import sys

host, port, cafile, cert, key, token = sys.argv[1:7]
calls = sys.argv[7:]
ctx = ssl.create_default_context(cafile=None if cafile == "-" else cafile)
if cert != "-":
    ctx.load_cert_chain(cert, key)
conn = http.client.HTTPSConnection(host, int(port), context=ctx, timeout=30)
try:
    for i in range(0, len(calls), 3):
        method, path, body = calls[i], calls[i + 1], calls[i + 2]
        headers = {"Content-Type": "application/json"}
        if token != "-":
            headers["Authorization"] = "Bearer " + token
        conn.request(method, path, body=None if body == "-" else body.encode(), headers=headers)
        r = conn.getresponse()
        print(json.dumps({"status": r.status, "body": r.read().decode()}), flush=True)
except (ssl.SSLError, OSError) as e:
    print(json.dumps({"error": type(e).__name__ + ": " + str(e)}), flush=True)
