package steptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/registry/catalogue/steptool"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

type place struct {
	Name string  `json:"name"`
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
}

// The steps run in order through the registry; each step's arguments take
// the placeholders (a left-out argument its default) and the earlier
// results; the tool's Result is the last step's, as it is.
func TestInvoke_RunsStepsInOrderWithDataFlow(t *testing.T) {
	h := newHost(t)
	h.add(t, "geo.lookup", ok(place{Name: "Paris", Lat: 48.85, Lon: 2.35}))
	h.add(t, "weather.now", ok(map[string]any{"temp": 21, "unit": "C"}))
	h.add(t, "fmt.temp", func(context.Context, string, json.RawMessage) (result.Result[any], error) {
		return result.Ok[any]("21 °C in Paris").WithMessage("formatted"), nil
	})
	tool := stepsTool(t, "weather", weatherSchema, weatherBody)

	res, err := h.inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"Paris"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "21 °C in Paris", res.Value)
	assert.Equal(t, "formatted", res.Message, "the last step's Result as it is")
	assert.Equal(t, []call{
		{"geo.lookup", `{"city":"Paris"}`},
		{"weather.now", `{"lat":48.85,"lon":2.35,"unit":"C"}`},
		{"fmt.temp", `{"value":21,"unit":"C","place":"Paris"}`},
	}, h.recorded())

	_, err = h.inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"Oslo","unit":"F"}`))
	require.NoError(t, err)
	assert.Equal(t, `{"lat":48.85,"lon":2.35,"unit":"F"}`, h.recorded()[4].Args, "a given argument beats the default")
}

// A failing step stops the sequence: later steps do not run, and the
// step's failure is returned with its error type and data, naming the
// line and the tool.
func TestInvoke_FailureMidSequenceStops(t *testing.T) {
	h := newHost(t)
	h.add(t, "geo.lookup", ok(place{Name: "Paris"}))
	h.add(t, "weather.now", func(context.Context, string, json.RawMessage) (result.Result[any], error) {
		return result.Failure[any]("no station near 0,0", result.NotFound).WithErrorData(map[string]any{"lat": 0}), nil
	})
	h.add(t, "fmt.temp", ok("never"))
	res, err := h.inv.Invoke(context.Background(), stepsTool(t, "weather", weatherSchema, weatherBody), json.RawMessage(`{"city":"Nowhere"}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.NotFound, res.ErrorType)
	assert.Equal(t, map[string]any{"lat": 0}, res.ErrorData)
	assert.Equal(t, `steps "weather@1": line 2: weather.now failed: no station near 0,0`, res.Error)
	assert.Len(t, h.recorded(), 2, "fmt.temp never ran")
}

// A step calling a tool the registry does not serve is the steps tool's
// failure (unavailable, naming the line), not a protocol ErrUnknownTool,
// which would say the steps tool itself is unknown.
func TestInvoke_StepCallingAMissingToolNamesTheLine(t *testing.T) {
	h := newHost(t)
	h.add(t, "a", ok(1))
	res, err := h.inv.Invoke(context.Background(), stepsTool(t, "s", `{"type":"object","properties":{}}`, "a()\nmissing.tool()\n"), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `steps "s@1": line 2: missing.tool: no such tool is served now`)
}

// A reference the earlier result cannot satisfy is a snippet_error naming
// the line and the reference.
func TestInvoke_ReferenceFailure(t *testing.T) {
	h := newHost(t)
	h.add(t, "geo.lookup", ok(map[string]any{"name": "x"}))
	h.add(t, "weather.now", ok(nil))
	h.add(t, "fmt.temp", ok(nil))
	res, err := h.inv.Invoke(context.Background(), stepsTool(t, "weather", weatherSchema, weatherBody), json.RawMessage(`{"city":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, snippet.ErrorType, res.ErrorType)
	assert.Contains(t, res.Error, `line 2: weather.now: r.lat: r has no field "lat"`)
}

// A steps tool calling itself through the registry ends after
// snippet.MaxNesting levels with a snippet_error, not a stack overflow.
func TestInvoke_NestingBound(t *testing.T) {
	h := newHost(t)
	h.add(t, "count", ok(1))
	self := stepsTool(t, "self", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		"count()\nsteps.self(n={{ n }})\n")
	h.addSteps(t, "steps.self", self)

	res, err := h.inv.Invoke(context.Background(), self, json.RawMessage(`{"n":1}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, snippet.ErrorType, res.ErrorType)
	assert.Equal(t, fmt.Sprintf(`steps "self@1": line 2: steps.self failed: steps tools and snippets run each other more than %d deep `+
		`(steps "self@1" line 2 → steps "self@1" again); does a tool call itself?`, snippet.MaxNesting), res.Error)
	assert.Len(t, h.recorded(), snippet.MaxNesting, "one count() per level that ran")
}

// Two steps tools nest below the bound: an outer one calls an inner one
// through the registry like any tool, and gets its value.
func TestInvoke_StepsToolCallsAnotherCatalogueTool(t *testing.T) {
	h := newHost(t)
	h.add(t, "geo.lookup", ok(place{Name: "Paris", Lat: 1, Lon: 2}))
	h.add(t, "weather.now", ok(map[string]any{"temp": 21, "unit": "C"}))
	h.add(t, "fmt.temp", ok("21 °C in Paris"))
	h.add(t, "notify", ok("sent"))
	h.addSteps(t, "cat.weather", stepsTool(t, "weather", weatherSchema, weatherBody))
	outer := stepsTool(t, "morning", `{"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}`,
		"w = cat.weather(city=\"Paris\")\nnotify(to={{ who }}, text=w)\n")

	res, err := h.inv.Invoke(context.Background(), outer, json.RawMessage(`{"who":"ann"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "sent", res.Value)
	calls := h.recorded()
	require.Len(t, calls, 4)
	assert.Equal(t, call{"notify", `{"to":"ann","text":"21 °C in Paris"}`}, calls[3])
}

// A step may be a catalogue http tool: the registry runs it with
// httptool against a real server, and its answer feeds the next step.
func TestInvoke_StepIsAnHTTPCatalogueTool(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"city":%q,"lat":48.85}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(srv.Close)
	hi, err := httptool.New(httptool.Options{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	require.NoError(t, err)
	geo := catalogue.Tool{Slug: "geo", Version: "1", ToolSpec: catalogue.ToolSpec{DisplayName: "geo", IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		HTTPImpl:  &catalogue.HTTPImpl{Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: srv.URL + "/geo", Query: map[string]string{"q": "${q}"}}}}}
	h := newHost(t)
	require.NoError(t, h.reg.Add(&registry.Tool{Name: "cat.geo", Description: "http", InputSchema: geo.ArgSchema,
		Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			return hi.Invoke(ctx, geo, c.Raw)
		}}))
	h.add(t, "echo", func(_ context.Context, _ string, raw json.RawMessage) (result.Result[any], error) {
		return result.Ok[any](string(raw)), nil
	})
	tool := stepsTool(t, "s", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		"g = cat.geo(q={{ city }})\necho(lat=g.lat, label=\"{{ city }}!\")")
	res, err := h.inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"Paris"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, `{"lat":48.85,"label":"Paris!"}`, res.Value)
}

// Cancelling the context stops the sequence before the next step; the
// error wraps context.Canceled and names the step not run.
func TestInvoke_CancellationBetweenSteps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHost(t)
	h.add(t, "geo.lookup", func(context.Context, string, json.RawMessage) (result.Result[any], error) {
		cancel() // the client goes away while step 1 runs
		return result.Ok[any](place{}), nil
	})
	h.add(t, "weather.now", ok(nil))
	h.add(t, "fmt.temp", ok(nil))
	_, err := h.inv.Invoke(ctx, stepsTool(t, "weather", weatherSchema, weatherBody), json.RawMessage(`{"city":"x"}`))
	require.ErrorIs(t, err, context.Canceled)
	// Step 1 either finished before its caller saw the cancellation (the
	// failure names step 2, not called) or was abandoned by the registry's
	// timeout middleware (the failure names step 1); which one is a race
	// the step itself starts by cancelling. No later step runs either way.
	assert.Regexp(t, `line 2: weather\.now not called|line 1: `, err.Error())
	assert.Len(t, h.recorded(), 1)

	_, err = h.inv.Invoke(ctx, stepsTool(t, "weather", weatherSchema, weatherBody), json.RawMessage(`{"city":"x"}`))
	require.ErrorIs(t, err, context.Canceled, "a context already done runs no step")
	assert.Len(t, h.recorded(), 1)
}

// The last value is checked against the outputSchema (through its JSON
// form); a mismatch names the JSON Pointer and keyword, never the value.
func TestInvoke_OutputSchema(t *testing.T) {
	h := newHost(t)
	h.add(t, "geo.lookup", ok(place{Name: "secret-place", Lat: 1}))
	tool := stepsTool(t, "g", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, "geo.lookup(city={{ city }})")

	tool.OutputSchema = json.RawMessage(`{"type":"object","required":["name","lat"],"properties":{"lat":{"type":"number"}}}`)
	res, err := h.inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"x"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, place{Name: "secret-place", Lat: 1}, res.Value, "the value is returned as the step gave it")

	tool.ID, _ = catalogue.NewID() // another tool version: compiled anew
	tool.OutputSchema = json.RawMessage(`{"type":"object","required":["elevation"],"properties":{"name":{"type":"integer"}}}`)
	res, err = h.inv.Invoke(context.Background(), tool, json.RawMessage(`{"city":"x"}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, steptool.ErrTypeOutputMismatch, res.ErrorType)
	assert.Equal(t, httptool.ErrTypeOutputMismatch, res.ErrorType, "the same error type as http tools")
	assert.ElementsMatch(t, []catalogue.Violation{{Pointer: "/elevation", Keyword: "required"}, {Pointer: "/name", Keyword: "type"}}, res.ErrorData)
	assert.Contains(t, res.Error, "/name: type")
	assert.NotContains(t, res.Error, "secret-place")
}

// Arguments that are not one JSON object, or too large, fail before any
// step; the argument defaults never override a given value.
func TestInvoke_BadArguments(t *testing.T) {
	h := newHost(t)
	h.add(t, "geo.lookup", ok(nil))
	tool := stepsTool(t, "g", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, "geo.lookup(city={{ city }})")
	for _, raw := range []string{`[1]`, `"x"`, `{"city":"a"} {}`, `{`, `null`} {
		res, err := h.inv.Invoke(context.Background(), tool, json.RawMessage(raw))
		require.NoError(t, err, raw)
		assert.Equal(t, result.ValidationError, res.ErrorType, raw)
	}
	res, err := h.inv.Invoke(context.Background(), tool, json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType, "a required argument missing (the caller skipped validation)")
	assert.Contains(t, res.Error, "city")

	small, err := steptool.New(steptool.Options{Tools: h.reg, MaxArgsBytes: 8})
	require.NoError(t, err)
	res, err = small.Invoke(context.Background(), tool, json.RawMessage(`{"city":"Paris"}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "expected at most 8")
	assert.Empty(t, h.recorded())
}

// A tool that is not a steps tool, or breaks the catalogue's rules, is
// ErrInvalidTool (and catalogue.ErrInvalid for a rule).
func TestInvoke_InvalidTool(t *testing.T) {
	h := newHost(t)
	good := stepsTool(t, "g", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, "geo.lookup(city={{ city }})")

	notSteps := good
	notSteps.Type = catalogue.TypeHTTP
	_, err := h.inv.Invoke(context.Background(), notSteps, nil)
	require.ErrorIs(t, err, steptool.ErrInvalidTool)

	badBody := good
	badBody.ID, _ = catalogue.NewID()
	badBody.StepsImpl = &catalogue.StepsImpl{Body: "geo.lookup(city={{ town }})"}
	_, err = h.inv.Invoke(context.Background(), badBody, json.RawMessage(`{"city":"x"}`))
	require.ErrorIs(t, err, steptool.ErrInvalidTool)
	require.ErrorIs(t, err, catalogue.ErrInvalid)
	assert.Contains(t, err.Error(), `line 1, column 20: unknown parameter "town"`)
	assert.Empty(t, h.recorded())
}

// New refuses options it cannot use, listing each.
func TestNew_Options(t *testing.T) {
	_, err := steptool.New(steptool.Options{MaxTools: -1, MaxArgsBytes: -1})
	require.ErrorIs(t, err, steptool.ErrInvalidOptions)
	for _, want := range []string{"Tools is nil", "MaxTools is -1", "MaxArgsBytes is -1"} {
		assert.Contains(t, err.Error(), want)
	}
}

// Compiled tools are cached per version, at most MaxTools.
func TestInvoke_CacheBounded(t *testing.T) {
	h := newHost(t)
	h.add(t, "a", ok(1))
	inv, err := steptool.New(steptool.Options{Tools: h.reg, MaxTools: 2})
	require.NoError(t, err)
	tool := stepsTool(t, "s", `{"type":"object","properties":{}}`, "a()")
	for range 3 {
		_, err := inv.Invoke(context.Background(), tool, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, inv.Cached())
	for range 3 {
		tool.ID, _ = catalogue.NewID()
		_, err := inv.Invoke(context.Background(), tool, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 2, inv.Cached())
}

// Property: in a chain of n steps where each step adds one to the
// previous step's value and step k fails, exactly the steps up to k run,
// each fed by the one before, and the failure names line k+1; without a
// failing step the value is start+n.
func TestInvoke_ChainProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, catalogue.MaxSteps).Draw(rt, "n")
		fail := rapid.IntRange(-1, n-1).Draw(rt, "fail")
		start := rapid.IntRange(-1000, 1000).Draw(rt, "start")
		h := newHost(t)
		var seen []int
		h.add(t, "inc", func(_ context.Context, _ string, raw json.RawMessage) (result.Result[any], error) {
			var a struct{ X int }
			if err := json.Unmarshal(raw, &a); err != nil {
				return result.Result[any]{}, err
			}
			seen = append(seen, a.X)
			if len(seen)-1 == fail {
				return result.Failure[any]("boom", result.UpstreamFailure), nil
			}
			return result.Ok[any](map[string]int{"v": a.X + 1}), nil
		})
		var b strings.Builder
		b.WriteString("r0 = inc(x={{ start }})\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "r%d = inc(x=r%d.v)\n", i, i-1)
		}
		tool := stepsTool(t, "chain", `{"type":"object","properties":{"start":{"type":"integer"}},"required":["start"]}`, b.String())
		res, err := h.inv.Invoke(context.Background(), tool, json.RawMessage(fmt.Sprintf(`{"start":%d}`, start)))
		if err != nil {
			rt.Fatalf("error: %v", err)
		}
		runs := n
		if fail >= 0 {
			runs = fail + 1
		}
		if len(seen) != runs {
			rt.Fatalf("%d steps ran, want %d", len(seen), runs)
		}
		for i, x := range seen {
			if x != start+i {
				rt.Fatalf("step %d got %d, want %d", i+1, x, start+i)
			}
		}
		if fail >= 0 {
			if res.Success || !strings.Contains(res.Error, fmt.Sprintf("line %d: inc failed: boom", fail+1)) {
				rt.Fatalf("failure %+v does not name line %d", res, fail+1)
			}
			return
		}
		if !res.Success || !equalJSON(res.Value, map[string]int{"v": start + n}) {
			rt.Fatalf("value %v, want v=%d", res.Value, start+n)
		}
	})
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
