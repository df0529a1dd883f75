module github.com/affordances-go/affordances/site/echosite

go 1.26.0

require (
	github.com/affordances-go/affordances v0.0.0-00010101000000-000000000000
	github.com/labstack/echo/v5 v5.4.6
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/affordances-go/affordances => ../..
