// The one C header for PostgreSQL's client library. Only
// Sources/History/PostgresConnection.swift imports CPostgres.
#include <libpq-fe.h>
