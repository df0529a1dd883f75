module github.com/affordances-go/affordances/examples/adopt/echonotes

go 1.26.0

require (
	github.com/affordances-go/affordances v0.0.0-00010101000000-000000000000
	github.com/affordances-go/affordances/site/echosite v0.0.0-00010101000000-000000000000
	github.com/gorilla/sessions v1.4.0
	github.com/labstack/echo/v5 v5.4.6
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/gorilla/securecookie v1.1.2 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace (
	github.com/affordances-go/affordances => ../../..
	github.com/affordances-go/affordances/site/echosite => ../../../site/echosite
)
