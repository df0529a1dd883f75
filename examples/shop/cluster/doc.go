// Package cluster tests the demo store as several instances behind a
// shared cache, on real servers: two store instances on one PostgreSQL
// and one Redis (the limiter), nginx in front with a proxy cache for
// anonymous pages (nginx.conf). Its figures are printed by
//
//	go test ./examples/shop/cluster -v -count=1
package cluster
