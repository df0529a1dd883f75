package hostile_test

import (
	"strings"
	"testing"
)

// Malformed bodies: nothing that is not a well-formed call, with input
// of the action's schema, gets past the decoder or the validator.
func TestHostile_MalformedBodies(t *testing.T) {
	e := newEnv(t, false)
	const p = "/products/heavyweight-tee"
	call := func(input string) string { return `{"action":"addToCart","input":` + input + `}` }
	deep := strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)
	manyKeys := "{" + strings.Repeat(`"k":1,`, 0)
	for i := range 5000 {
		manyKeys += `"k` + itoa(int64(i)) + `":1,`
	}
	manyKeys += `"sku":"TEE-BLK-M"}`
	bad := func(name, body string) row {
		return row{name: name, as: "a-token", path: p, body: body, status: 400, code: "invalid_input"}
	}
	rows := []row{
		bad("empty body", ""),
		bad("whitespace only", "   \n\t "),
		bad("unclosed object", `{`),
		bad("array", `[]`),
		bad("string", `"addToCart"`),
		bad("null", `null`),
		bad("number", `123`),
		bad("true", `true`),
		bad("action is a number", `{"action":1}`),
		bad("action is empty", `{"action":""}`),
		bad("action is null", `{"action":null}`),
		bad("action is an object", `{"action":{"name":"addToCart"}}`),
		bad("no action", `{}`),
		bad("action key in another case", `{"Action":"addToCart","input":{"sku":"TEE-BLK-M"}}`),
		bad("duplicate action key", `{"action":"addToCart","action":"placeOrder","input":{"sku":"TEE-BLK-M"}}`),
		bad("case-variant call keys", `{"action":"addToCart","ACTION":"x","input":{"sku":"TEE-BLK-M"}}`),
		bad("input is an array", call(`[]`)),
		bad("input is a string", call(`"TEE-BLK-M"`)),
		bad("input is null", call(`null`)),
		bad("input is a number", call(`5`)),
		bad("sku missing", call(`{}`)),
		bad("sku is a number", call(`{"sku":5}`)),
		bad("sku is null", call(`{"sku":null}`)),
		bad("sku in lower case", call(`{"sku":"tee-blk-m"}`)),
		bad("sku too long", call(`{"sku":"`+strings.Repeat("A", 41)+`"}`)),
		bad("sku with a newline", call(`{"sku":"TEE-BLK-M\nX"}`)),
		bad("sku with a NUL", call(`{"sku":"TEE\u0000BLK"}`)),
		bad("duplicate sku key", call(`{"sku":"TEE-BLK-M","sku":"TEE-WHI-M"}`)),
		bad("case-variant input keys", call(`{"sku":"TEE-BLK-M","SKU":"TEE-WHI-M"}`)),
		bad("only a case-variant key", call(`{"Sku":"TEE-BLK-M"}`)),
		bad("unknown input property", call(`{"sku":"TEE-BLK-M","price":0}`)),
		bad("qty zero", call(`{"sku":"TEE-BLK-M","qty":0}`)),
		bad("qty negative", call(`{"sku":"TEE-BLK-M","qty":-1}`)),
		bad("qty over the maximum", call(`{"sku":"TEE-BLK-M","qty":11}`)),
		bad("qty as a string", call(`{"sku":"TEE-BLK-M","qty":"1"}`)),
		bad("qty a fraction", call(`{"sku":"TEE-BLK-M","qty":1.5}`)),
		bad("qty a huge integer", call(`{"sku":"TEE-BLK-M","qty":100000000000000000000}`)),
		bad("qty a huge exponent", call(`{"sku":"TEE-BLK-M","qty":1e999999999}`)),
		bad("qty NaN", call(`{"sku":"TEE-BLK-M","qty":NaN}`)),
		bad("qty Infinity", call(`{"sku":"TEE-BLK-M","qty":Infinity}`)),
		bad("qty a leading zero", call(`{"sku":"TEE-BLK-M","qty":01}`)),
		bad("qty a leading plus", call(`{"sku":"TEE-BLK-M","qty":+1}`)),
		bad("nested 100 deep", `{"action":"addToCart","input":`+deep+`}`),
		bad("5000 unknown keys", call(manyKeys)),
		bad("trailing garbage", call(`{"sku":"TEE-BLK-M"}`)+` x`),
		bad("two documents", call(`{"sku":"TEE-BLK-M"}`)+call(`{"sku":"TEE-BLK-M"}`)),
		bad("trailing comma", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"},}`),
		bad("single quotes", `{'action':'addToCart'}`),
		bad("comments", `{"action":"addToCart" /* x */,"input":{"sku":"TEE-BLK-M"}}`),
		bad("a byte order mark", "\ufeff"+call(`{"sku":"TEE-BLK-M"}`)),
		bad("invalid UTF-8", "{\"action\":\"addToCart\",\"input\":{\"sku\":\"\xff\xfe\"}}"),
		bad("a lone surrogate escape", call(`{"sku":"\ud800"}`)),
		bad("a bad escape", call(`{"sku":"\x41"}`)),
		bad("confirm is a string", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"},"confirm":"true"}`),
		bad("confirm is null", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"},"confirm":null}`),
		{name: "over the size limit", as: "a-token", path: p, body: call(`{"sku":"TEE-BLK-M","pad":"` + strings.Repeat("x", 1<<20) + `"}`), status: 413, code: "invalid_input"},
		{name: "JSON as text/plain", as: "a-token", path: p, ctype: "text/plain", body: call(`{"sku":"TEE-BLK-M"}`), status: 415},
		{name: "JSON as application/json", as: "a-token", path: p, ctype: "application/json", body: call(`{"sku":"TEE-BLK-M"}`), status: 415},
		{name: "no Content-Type", as: "a-token", path: p, ctype: "none", body: call(`{"sku":"TEE-BLK-M"}`), status: 415},
		{name: "the media type with a charset", as: "a-token", path: p, ctype: "application/vnd.affordances+json; charset=utf-8", body: call(`{"sku":"TEE-WHI-M"}`), status: 200, code: "ok", mayChange: true},
		{name: "a form without _action", as: "a", path: p, ctype: "form", body: "sku=TEE-BLK-M", status: 400},
		{name: "a form with a bad qty", as: "a", path: p, ctype: "form", body: "_action=addToCart&sku=TEE-BLK-M&qty=lots", status: 400},
		{name: "a form with a bad percent-escape", as: "a", path: p, ctype: "form", body: "_action=addToCart&sku=%zz", status: 400},
		{name: "a multipart form without a boundary", as: "a", path: p, ctype: "multipart/form-data", body: "x", status: 400},
	}
	counts["malformed bodies"] = e.run(rows)
}
