package strictjson

// Parse parses one JSON value of any kind, with nesting at most maxDepth
// deep. Calls only ever parse objects (ParseObject); the tests and the fuzz
// target exercise the parser on every kind of value through this.
func Parse(data []byte, maxDepth int) (any, error) {
	p := parser{data: data, maxDepth: maxDepth}
	return p.document()
}
