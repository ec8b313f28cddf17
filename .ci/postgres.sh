#!/usr/bin/env bash
# Makes sure a PostgreSQL ≥ 15 runs on 127.0.0.1:5432 and that a test database can be
# reached over TCP, whether the server trusts local connections or wants a password.
# Prints `export TEST_DATABASE_URL=...` on stdout; everything else goes to stderr.
set -uo pipefail
exec 3>&1 1>&2

DB=trainyard_test
HOST=127.0.0.1
PORT=5432

as_postgres() { if command -v runuser >/dev/null; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi; }

if ! command -v pg_ctlcluster >/dev/null 2>&1 && ! command -v postgres >/dev/null 2>&1; then
  echo "installing PostgreSQL from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq postgresql postgresql-client >/dev/null || exit 1
fi

if ! pg_isready -q -h "$HOST" -p "$PORT"; then
  echo "starting PostgreSQL"
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  [ -n "$version" ] || { echo "no PostgreSQL cluster configured"; exit 1; }
  if ! pg_lsclusters -h 2>/dev/null | grep -q "^$version main"; then
    pg_createcluster "$version" main >/dev/null || exit 1
  fi
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || exit 1
  for _ in $(seq 1 60); do pg_isready -q -h "$HOST" -p "$PORT" && break; sleep 0.5; done
  pg_isready -q -h "$HOST" -p "$PORT" || { echo "PostgreSQL did not become ready"; exit 1; }
fi

try_url() { psql "$1" -Atqc 'select 1' >/dev/null 2>&1; }

# 1. Trust (or a PGPASSWORD the caller gave) on 127.0.0.1 as postgres.
url="postgresql://postgres${PGPASSWORD:+:$PGPASSWORD}@$HOST:$PORT/postgres"
if try_url "$url"; then
  psql "$url" -Atqc "select 1 from pg_database where datname='$DB'" | grep -q 1 \
    || psql "$url" -qc "create database $DB" || exit 1
  echo "export TEST_DATABASE_URL='postgresql://postgres${PGPASSWORD:+:$PGPASSWORD}@$HOST:$PORT/$DB'" >&3
  exit 0
fi

# 2. Password auth: make our own role through the local socket (peer auth as postgres).
echo "127.0.0.1 wants a password: creating role trainyard_ci through the local socket"
password="ci_$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
as_postgres psql -qc "DO \$\$BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='trainyard_ci') THEN CREATE ROLE trainyard_ci LOGIN CREATEDB; END IF;
END\$\$; ALTER ROLE trainyard_ci PASSWORD '$password';" || exit 1
as_postgres psql -Atqc "select 1 from pg_database where datname='$DB'" | grep -q 1 \
  || as_postgres psql -qc "create database $DB owner trainyard_ci" || exit 1
url="postgresql://trainyard_ci:$password@$HOST:$PORT/$DB"
try_url "$url" || { echo "cannot connect as trainyard_ci over TCP"; exit 1; }
echo "export TEST_DATABASE_URL='$url'" >&3
