// Package tokenkit runs the token kit's SQL store (site/tokens) on the
// three databases it speaks: SQLite (modernc.org/sqlite), PostgreSQL
// (pgx) and MariaDB (go-sql-driver/mysql), each a real server the test
// starts on loopback. The same contract runs on the memory store in the
// library's own tests.
package tokenkit
