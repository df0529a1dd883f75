// Package cluster tests the demo store as several instances behind a
// shared cache, on real servers: two store instances on one PostgreSQL
// and one Redis (the limiter), nginx in front with a proxy cache for
// anonymous pages (nginx.conf). Its figures are printed by
//
//	go test ./examples/shop/cluster -v -count=1
//
// The benchmark program (go run ./bench -only cluster) runs the same
// nginx configuration in front of three instances.
package cluster

import _ "embed"

// NginxConf is nginx.conf: the http block in front of the instances, with
// {{LISTEN}}, {{DIR}} and {{UPSTREAMS}} to fill in.
//
//go:embed nginx.conf
var NginxConf string
