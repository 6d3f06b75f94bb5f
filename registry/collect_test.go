package registry

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

type greetArgs struct {
	Name string `json:"name" validate:"required,min=1,max=20" description:"Who to greet."`
}

func greet(ctx context.Context, a greetArgs) (result.Result[string], error) {
	return result.Ok("hello " + a.Name), nil
}

func funcPtr(f any) uintptr { return reflect.ValueOf(f).Pointer() }

// Seed 004 "Tool declaration": the function is added without wrapping and
// returned unchanged.
func TestDeclare_ReturnsFunctionUnchanged(t *testing.T) {
	var c Collection
	got := DeclareIn(&c, "greet", greet, ToolOptions{Doc: "Greets."})
	assert.Equal(t, funcPtr(greet), funcPtr(got), "Declare must return the very same function")
	res, err := got(context.Background(), greetArgs{Name: "Ada"})
	require.NoError(t, err)
	assert.Equal(t, "hello Ada", res.Value)

	tools, err := c.Collect()
	require.NoError(t, err)
	require.Contains(t, tools, "greet")
	assert.Equal(t, "greet", tools["greet"].Name)
	assert.Contains(t, tools["greet"].Description, "Greets.")
}

// Seed 004 "Collection retrieval": all declared tools are returned and the
// collection is cleared.
func TestCollect_ReturnsAllDeclaredAndClears(t *testing.T) {
	var c Collection
	for _, n := range []string{"a", "b", "c"} {
		DeclareIn(&c, n, greet, ToolOptions{})
	}
	tools, err := c.Collect()
	require.NoError(t, err)
	assert.Len(t, tools, 3)
	for _, n := range []string{"a", "b", "c"} {
		assert.Contains(t, tools, n)
	}
	DeclareIn(&c, "d", greet, ToolOptions{})
	tools, err = c.Collect()
	require.NoError(t, err)
	assert.Equal(t, []string{"d"}, keys(tools), "a collect after new declarations returns only those")
}

func keys(m map[string]*Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Seed 004 "Double registration prevention": a second collect returns an
// empty map, so tools are not registered twice.
func TestCollect_SecondCallReturnsEmpty(t *testing.T) {
	var c Collection
	DeclareIn(&c, "greet", greet, ToolOptions{})
	r := New(noPrefix())
	for i := 0; i < 2; i++ {
		tools, err := c.Collect()
		require.NoError(t, err)
		if i == 1 {
			assert.NotNil(t, tools)
			assert.Empty(t, tools, "second collect must return nothing")
		}
		for _, tool := range tools {
			require.NoError(t, r.Add(tool), "no tool may be registered twice")
		}
	}
	assert.Len(t, r.List(), 1)
}

// The default collection behind Declare/Collect follows the same rules.
func TestDefaultCollection_DeclareAndCollect(t *testing.T) {
	_, _ = Collect() // start empty whatever ran before
	got := Declare("default_greet", greet, ToolOptions{})
	assert.Equal(t, funcPtr(greet), funcPtr(got))
	tools, err := Collect()
	require.NoError(t, err)
	assert.Equal(t, []string{"default_greet"}, keys(tools))
	tools, err = Collect()
	require.NoError(t, err)
	assert.Empty(t, tools)
}

// Bad declarations are reported, joined, by the next Collect; the good ones
// are still returned and the function is still returned unchanged.
func TestDeclare_BadDeclarationsReportedByCollect(t *testing.T) {
	var c Collection
	DeclareIn(&c, "ok", greet, ToolOptions{})
	DeclareIn(&c, "ok", greet, ToolOptions{})        // duplicate
	DeclareIn(&c, "bad name!", greet, ToolOptions{}) // invalid name
	got := DeclareIn[greetArgs, string](&c, "nil_fn", nil, ToolOptions{})
	assert.Nil(t, got)
	tools, err := c.Collect()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNameClash)
	assert.ErrorIs(t, err, ErrInvalidName)
	assert.Contains(t, err.Error(), `"nil_fn"`)
	assert.Equal(t, []string{"ok"}, keys(tools))
	_, err = c.Collect()
	assert.NoError(t, err, "errors are cleared with the collection")
}

// Collection.Pack collects into a sorted pack and refuses bad declarations.
func TestCollection_Pack(t *testing.T) {
	var c Collection
	DeclareIn(&c, "zeta", greet, ToolOptions{})
	DeclareIn(&c, "alpha", greet, ToolOptions{})
	p, err := c.Pack("demo", "Demo tools.")
	require.NoError(t, err)
	assert.Equal(t, "demo", p.Name)
	require.Len(t, p.Tools, 2)
	assert.Equal(t, "alpha", p.Tools[0].Name)
	assert.Equal(t, "zeta", p.Tools[1].Name)

	DeclareIn(&c, "x y", greet, ToolOptions{})
	_, err = c.Pack("demo", "")
	assert.ErrorIs(t, err, ErrInvalidName)
	_, err = c.Pack("bad pack", "")
	assert.ErrorIs(t, err, ErrInvalidName)
}

// Seed 004 "Thread safety": many goroutines declare and collect at once;
// every declared tool is collected exactly once. Run with -race.
func TestCollect_ConcurrentDeclareAndCollect(t *testing.T) {
	const writers, perWriter, collectors = 16, 40, 4
	var c Collection
	var (
		mu        sync.Mutex
		collected = map[string]int{}
	)
	gather := func() {
		tools, err := c.Collect()
		assert.NoError(t, err)
		mu.Lock()
		for n := range tools {
			collected[n]++
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var cw sync.WaitGroup
	for i := 0; i < collectors; i++ {
		cw.Add(1)
		go func() {
			defer cw.Done()
			for {
				select {
				case <-stop:
					return
				default:
					gather()
				}
			}
		}()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				DeclareIn(&c, fmt.Sprintf("t%d_%d", w, i), greet, ToolOptions{})
			}
		}()
	}
	wg.Wait()
	close(stop)
	cw.Wait()
	gather()
	assert.Len(t, collected, writers*perWriter)
	for n, k := range collected {
		assert.Equal(t, 1, k, "tool %s collected %d times", n, k)
	}
}
