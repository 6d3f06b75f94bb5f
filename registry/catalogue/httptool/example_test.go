package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
)

// An http tool with a templated path, a query, bearer auth from the host's
// secrets, an extract path and an output schema.
func Example() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":{"city":%q,"units":%q,"temp":21}}`, r.URL.Path[len("/weather/"):], r.URL.Query().Get("units"))
	}))
	defer upstream.Close()

	inv, err := httptool.New(httptool.Options{
		AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, // the test server
		Secrets:    map[string]string{"WEATHER_TOKEN": "t0ken"},
	})
	if err != nil {
		panic(err)
	}
	defer inv.Close()
	id, _ := catalogue.NewID()
	tool := catalogue.Tool{ID: id, Slug: "weather", Version: "1", ToolSpec: catalogue.ToolSpec{
		Type:         catalogue.TypeHTTP,
		ArgSchema:    json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["temp"]}`),
		HTTPImpl: &catalogue.HTTPImpl{
			Request: catalogue.HTTPRequest{
				Method:      "GET",
				URLTemplate: upstream.URL + "/weather/${city}",
				Query:       map[string]string{"units": "${units}"},
				Auth:        &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${WEATHER_TOKEN}"},
			},
			Response: catalogue.HTTPResponse{Extract: "data"},
			Limits:   catalogue.HTTPLimits{Timeout: "5s", MaxRetries: 2},
		},
	}}
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"São Paulo","units":"metric"}`))
	if err != nil {
		panic(err)
	}
	out, _ := res.JSON()
	fmt.Println(out)
	// Output: {"success":true,"value":{"city":"São Paulo","temp":21,"units":"metric"}}
}

// A value can never change the request's structure: here a path value
// that tries to climb out of its segment is refused before anything is
// sent.
func ExampleURLTemplate_Render() {
	ut, _ := httptool.ParseURL("https://api.example.com/files/${name}?v=${v}")
	look := func(name string) (httptool.Value, bool) {
		return map[string]httptool.Value{
			"name": httptool.StringValue("a/b?c#d"),
			"v":    httptool.StringValue("1&admin=true"),
		}[name], true
	}
	u, _ := ut.Render("urlTemplate", look)
	fmt.Println(u)

	_, err := ut.Render("urlTemplate", func(string) (httptool.Value, bool) { return httptool.StringValue(".."), true })
	fmt.Println(err)
	// Output:
	// https://api.example.com/files/a%2Fb%3Fc%23d?v=1%26admin%3Dtrue
	// urlTemplate: value of ${name}: makes the path segment ".."; expected a value that is not empty, "." or ".."
}

// In a JSON body, a placeholder standing as a value takes the argument's
// JSON; one inside a string takes its text escaped as string content.
func ExampleBodyTemplate_Render() {
	bt, _ := httptool.ParseBody(`{"query": ${q}, "limit": ${n}, "note": "from ${q}"}`)
	args := map[string]json.RawMessage{"q": json.RawMessage(`"x\", \"admin\": true"`), "n": json.RawMessage(`10`)}
	body, _ := bt.Render("body", func(name string) (httptool.Value, bool) {
		v, err := httptool.JSONValue(args[name])
		return v, err == nil
	})
	fmt.Println(string(body))
	// Output: {"query": "x\", \"admin\": true", "limit": 10, "note": "from x\", \"admin\": true"}
}

// An extract path narrows a decoded JSON answer.
func ExamplePath_Apply() {
	p, _ := httptool.ParsePath("data.items[-1].name")
	var doc any
	_ = json.Unmarshal([]byte(`{"data":{"items":[{"name":"a"},{"name":"b"}]}}`), &doc)
	v, _ := p.Apply(doc)
	fmt.Println(v)
	// Output: b
}

// The string an HMAC-signed request signs.
func ExampleHMACCanonical() {
	fmt.Printf("%q\n", httptool.HMACCanonical("POST", "/v1/items", "q=1", 1700000000, "e3b0c442…"))
	// Output: "POST\n/v1/items\nq=1\n1700000000\ne3b0c442…"
}
