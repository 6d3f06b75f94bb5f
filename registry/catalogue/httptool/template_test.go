package httptool_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/result"
)

// injection are argument values that try to change a request's structure.
var injection = []string{
	"a/b", "../admin", "a?x=1", "a#frag", "user@evil.example", "a\r\nX-Evil: 1",
	`a"b`, "a'b", "a}b", "${other}", "%2e%2e", "%2F", "a&b=c", "a=b", "a+b c",
	"日本語", "é\u0301", "a\\b", "\u2028", "a;b", "a,b",
}

func TestURLPathValueCannotAddSegmentsOrChangeHost(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/items/${id}/detail"})
	for _, v := range injection {
		t.Run(v, func(t *testing.T) {
			res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"id": v}))
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			got := rec.last(t)
			assert.Equal(t, "/items/"+v+"/detail", got.Path, "decoded path")
			segs := strings.Split(strings.TrimPrefix(got.RawPath, "/"), "/")
			require.Len(t, segs, 3, "escaped path %q", got.RawPath)
			assert.Empty(t, got.Query, "no query added")
			assert.NotContains(t, got.RequestURI, "#")
		})
	}
}

func TestURLPathDotSegmentsAndEmptyValueRefused(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/items/${id}"})
	for _, v := range []string{"", ".", ".."} {
		res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"id": v}))
		require.NoError(t, err)
		require.False(t, res.Success)
		assert.Equal(t, result.ValidationError, res.ErrorType)
		assert.Contains(t, res.Error, "${id}")
	}
	assert.Zero(t, rec.count(), "nothing sent")
	// Dots inside a segment are fine.
	res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"id": "report..v2.pdf"}))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "/items/report..v2.pdf", rec.last(t).Path)
}

func TestURLQueryValuesEncodedAsQueryValues(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET",
		URLTemplate: rec.URL + "/s?inline=${a}",
		Query:       map[string]string{"q": "${b}", "lit": "x ${b} y"}})
	for _, v := range injection {
		t.Run(v, func(t *testing.T) {
			res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"a": v, "b": v}))
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			got := rec.last(t)
			assert.Equal(t, "/s", got.Path)
			assert.Equal(t, map[string][]string{"inline": {v}, "q": {v}, "lit": {"x " + v + " y"}}, got.Query)
		})
	}
}

func TestURLTemplateSchemeAndHostMustBeLiteral(t *testing.T) {
	for _, s := range []string{
		"http://${host}/x", "https://api.${zone}.example/x", "http://u:p@example.com/", "ftp://example.com/",
		"http:///x", "http://exa mple.com/", "//example.com/x", "http://example.com/${x",
	} {
		_, err := httptool.ParseURL(s)
		assert.ErrorIs(t, err, httptool.ErrTemplate, s)
	}
	u, err := httptool.ParseURL("https://api.example.com:8443/v1/${x}?y=${y}#${z}")
	require.NoError(t, err)
	got, err := u.Render("url", func(string) (httptool.Value, bool) { return httptool.StringValue("a/b?c#d@e"), true })
	require.NoError(t, err)
	assert.Equal(t, "https", got.Scheme)
	assert.Equal(t, "api.example.com:8443", got.Host)
	assert.Equal(t, "/v1/a%2Fb%3Fc%23d%40e", got.EscapedPath())
	assert.Equal(t, "y=a%2Fb%3Fc%23d%40e", got.RawQuery)
}

func TestHeaderValueWithCRLFRefused(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/",
		Headers: map[string]string{"X-Id": "id-${id}"}})
	for _, v := range []string{"a\r\nX-Evil: 1", "a\nb", "a\rb", "a\x00b", "a\x7fb"} {
		res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"id": v}))
		require.NoError(t, err)
		require.False(t, res.Success)
		assert.Equal(t, result.ValidationError, res.ErrorType)
		assert.Contains(t, res.Error, `request.headers["X-Id"]`)
		assert.Contains(t, res.Error, "${id}")
	}
	assert.Zero(t, rec.count())
	// Quotes, braces, unicode and tabs are fine in a header.
	v := "a\t\"b\"}日本"
	res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"id": v}))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "id-"+v, rec.last(t).Header.Get("X-Id"))
}

func TestJSONBodyValuesCannotChangeShape(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "POST", URLTemplate: rec.URL + "/",
		Body: `{"q": ${q}, "note": "by ${q}!", "n": ${n}, "obj": ${o}}`})
	values := append([]string{`", "admin": true, "x": "`, `"}`, `\`, `\"`, "\u0000", "</script>"}, injection...)
	for _, v := range values {
		t.Run(v, func(t *testing.T) {
			args := map[string]any{"q": v, "n": 12.5, "o": map[string]any{"k": []any{1, "x"}}}
			res, err := inv.Invoke(context.Background(), tool, mustJSON(t, args))
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			got := rec.last(t)
			assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
			var body map[string]any
			require.NoError(t, json.Unmarshal(got.Body, &body), string(got.Body))
			assert.Equal(t, map[string]any{"q": v, "note": "by " + v + "!", "n": 12.5,
				"obj": map[string]any{"k": []any{1.0, "x"}}}, body)
		})
	}
}

func TestNonStringArgumentsRenderAsJSONText(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "POST", URLTemplate: rec.URL + "/n/${n}",
		Query: map[string]string{"b": "${b}", "o": "${o}"}, Body: "n=${n} b=${b} o=${o}"})
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{"n": 42, "b": true, "o": {"a": [1, 2]}}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	got := rec.last(t)
	assert.Equal(t, "/n/42", got.Path)
	assert.Equal(t, map[string][]string{"b": {"true"}, "o": {`{"a":[1,2]}`}}, got.Query)
	assert.Equal(t, `n=42 b=true o={"a":[1,2]}`, string(got.Body))
	assert.Equal(t, "text/plain; charset=utf-8", got.Header.Get("Content-Type"))
}

func TestJSONBodyTemplateMustBeJSON(t *testing.T) {
	_, err := httptool.ParseBody(`{"a": ${x}`)
	assert.ErrorIs(t, err, httptool.ErrTemplate)
	_, err = httptool.ParseBody(`{"a": ${x} ${y}}`)
	assert.ErrorIs(t, err, httptool.ErrTemplate)
	bt, err := httptool.ParseBody(` [${x}, "${y}"]`)
	require.NoError(t, err)
	assert.True(t, bt.IsJSON())
	bt, err = httptool.ParseBody(`name=${x}`)
	require.NoError(t, err)
	assert.False(t, bt.IsJSON())
}

func TestUnknownPlaceholderNamedNeverTheSecret(t *testing.T) {
	rec := newRecorder(t, nil)
	const secret = "s3cr3t-value-XYZ"
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"KEY": secret}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/${missing}",
		Headers: map[string]string{"X-Key": "${KEY}"}, Query: map[string]string{"a": "${other}"}})
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "${missing}")
	assert.NotContains(t, res.Error, secret)
	assert.Zero(t, rec.count())
}

func TestPlaceholderFromSecretsAndArgumentsFirst(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"KEY": "k1", "region": "eu"}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/${region}",
		Headers: map[string]string{"X-Key": "${KEY}"}})
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "k1", rec.last(t).Header.Get("X-Key"))
	assert.Equal(t, "/eu", rec.last(t).Path)
	res, err = inv.Invoke(context.Background(), tool, json.RawMessage(`{"region":"us"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "/us", rec.last(t).Path)
}

// TestPropertyValuesKeepStructure: for any string values, the URL path
// keeps its segments, the query its keys and the JSON body its shape, and
// every value arrives intact.
func TestPropertyValuesKeepStructure(t *testing.T) {
	ut, err := httptool.ParseURL("https://api.example.com/a/${x}/b?k=${y}")
	require.NoError(t, err)
	bt, err := httptool.ParseBody(`{"v": ${x}, "s": "<${y}>", "l": [${x}, "${x}"]}`)
	require.NoError(t, err)
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.String().Draw(t, "x")
		y := rapid.String().Draw(t, "y")
		if x == "" || x == "." || x == ".." {
			x += "z"
		}
		look := func(n string) (httptool.Value, bool) {
			if n == "x" {
				return httptool.StringValue(x), true
			}
			return httptool.StringValue(y), true
		}
		u, err := ut.Render("url", look)
		if err != nil {
			t.Fatalf("render url: %v", err)
		}
		if u.Host != "api.example.com" || u.Path != "/a/"+x+"/b" || len(strings.Split(u.EscapedPath(), "/")) != 4 {
			t.Fatalf("url structure changed: %s", u)
		}
		if q := u.Query(); len(q) != 1 || q.Get("k") != y {
			t.Fatalf("query changed: %v", q)
		}
		b, err := bt.Render("body", look)
		if err != nil {
			t.Fatalf("render body: %v", err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("body not JSON: %v", err)
		}
		// json.Unmarshal replaces invalid UTF-8 as json.Marshal does.
		wx, wy := jsonRoundTrip(x), jsonRoundTrip(y)
		want := map[string]any{"v": wx, "s": "<" + wy + ">", "l": []any{wx, wx}}
		if !assert.ObjectsAreEqual(want, got) {
			t.Fatalf("body shape changed: %s", b)
		}
	})
}

func jsonRoundTrip(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

func TestArgumentsMustBeAnObjectWithinTheCap(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{MaxArgsBytes: 64})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/"})
	for _, a := range []string{`[]`, `"x"`, `null`, `{`, `{"a":` + strings.Repeat("1", 100) + `}`} {
		res, err := inv.Invoke(context.Background(), tool, json.RawMessage(a))
		require.NoError(t, err)
		require.False(t, res.Success, a)
		assert.Equal(t, result.ValidationError, res.ErrorType, a)
		assert.Contains(t, res.Error, "arguments")
	}
	assert.Zero(t, rec.count())
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	assert.True(t, res.Success, "no arguments is an empty object")
}

func TestTemplateParse(t *testing.T) {
	tp, err := httptool.Parse("a${x}b$c${y_1}${x}$")
	require.NoError(t, err)
	assert.Equal(t, []string{"x", "y_1", "x"}, tp.Names())
	assert.Equal(t, "a${x}b$c${y_1}${x}$", tp.String())
	for _, bad := range []string{"${", "${x", "${}", "${1x}", "${a-b}", "${é}", "a${ x}", "\xff"} {
		_, err := httptool.Parse(bad)
		assert.ErrorIs(t, err, httptool.ErrTemplate, bad)
	}
}

func TestBodyHasContentLengthAndMethod(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "PUT", URLTemplate: rec.URL + "/x", Body: `{"a":${a}}`,
		Headers: map[string]string{"Content-Type": "application/merge-patch+json"}})
	res, err := inv.Invoke(context.Background(), tool, json.RawMessage(`{"a":"b"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Nil(t, res.Value, "204 with JSON encoding is null")
	got := rec.last(t)
	assert.Equal(t, "PUT", got.Method)
	assert.Equal(t, "application/merge-patch+json", got.Header.Get("Content-Type"), "a declared Content-Type wins")
	assert.JSONEq(t, `{"a":"b"}`, string(got.Body))
}
