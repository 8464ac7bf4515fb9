#!/usr/bin/env python3
"""Asks a server's UserInfo endpoint (argument) about the bearer token on standard input, as a resource server
would: prints the HTTP status, then the JSON body when there is one."""
import sys
import urllib.error
import urllib.request

token = sys.stdin.read().strip()
headers = {"Authorization": "Bearer " + token, "Accept": "application/json"}
request = urllib.request.Request(sys.argv[1], headers=headers)
try:
    with urllib.request.urlopen(request, timeout=10) as response:
        print(response.status)
        print(response.read().decode())
except urllib.error.HTTPError as error:
    print(error.code)
