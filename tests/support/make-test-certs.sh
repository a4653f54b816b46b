#!/bin/sh
# Makes the TLS tests' certificates in <dir> (EC P-256, valid ten years: the unit tests keep one
# set per build tree), with the openssl tool:
#   ca.crt/ca.key                 the CA listd trusts (tls-ca-cert-file)
#   server.crt/server.key         the server's, signed by ca (SAN 127.0.0.1, localhost)
#   server-pass.key               server.key encrypted with the password "key-pass"
#   client.crt/client.key         a client's, signed by ca
#   stranger.crt/stranger.key     a client's signed by another CA (other-ca.crt): refused
# Used by the unit tests (tests/unit/net) and the Python ones (listd_testing.tls).
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() {  # ca <name> <subject>
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.crt" -days 3650 -subj "/CN=$2" 2>/dev/null
}
signed() {  # signed <name> <ca> <subject>
  key "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$3" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -out "$1.crt" \
    -days 3650 -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
ca ca "listd test CA"
ca other-ca "another CA"
signed server ca "listd test server"
signed client ca "listd test client"
signed stranger other-ca "stranger"
openssl pkey -in server.key -aes256 -passout pass:key-pass -out server-pass.key 2>/dev/null
