#!/bin/sh
# One login role and one database per service that owns event streams, named after it; each role
# owns its database (the event store creates its schema and tables there at first start) and no
# one else may connect to it. Passwords come from the Secrets switchboard-postgres-<service>, as
# POSTGRES_<SERVICE>_PASSWORD. Runs once, when the data directory is first initialised; a
# password changed later is changed with ALTER ROLE (see deploy/k8s/README.md).
set -eu
for service in sessions messaging quota events; do
  variable="POSTGRES_$(echo "$service" | tr 'a-z' 'A-Z')_PASSWORD"
  password="$(printenv "$variable")" || { echo "$variable is not set" >&2; exit 1; }
  # psql variables (:"name", :'literal') quote the values: the password is never spliced into SQL.
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v name="$service" -v password="$password" <<'SQL'
CREATE ROLE :"name" LOGIN PASSWORD :'password';
CREATE DATABASE :"name" OWNER :"name";
REVOKE ALL ON DATABASE :"name" FROM PUBLIC;
SQL
done
