package ot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// HelloArgs are the arguments of the example's greet.hello tool.
type HelloArgs struct {
	Name string `json:"name" validate:"required,max=50" description:"Who to greet."`
}

func hello(_ context.Context, a HelloArgs) (result.Result[string], error) {
	return result.Ok("Hello, " + a.Name + "!"), nil
}

func ExampleNew() {
	reg := registry.New(registry.Options{Prefix: new("")})
	greet := &registry.Pack{Name: "greet", Description: "Greetings."}
	if err := registry.AddFunc(greet, "greet.hello", hello, registry.ToolOptions{Doc: "Says hello."}); err != nil {
		log.Fatal(err)
	}
	if err := reg.AddPack(greet); err != nil {
		log.Fatal(err)
	}

	p, err := ot.New(ot.Config{Registry: reg, Version: "1.2.3"})
	if err != nil {
		log.Fatal(err)
	}
	if err := reg.AddPack(p); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	for _, args := range []string{`{"pattern":"greet"}`, `{"pattern":"greet","info":"full"}`} {
		res, err := reg.Invoke(ctx, "ot.tools", json.RawMessage(args))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(res.Value)
	}
	res, _ := reg.Invoke(ctx, "ot.help", json.RawMessage(`{"query":"greeet","info":"list"}`))
	fmt.Print(res.Value)
	// Output:
	// - {name: greet.hello, description: "Says hello."}
	// - {name: greet.hello, signature: 'greet.hello(name: str)', description: "Says hello.", source: local, args: ['name: Who to greet.'], returns: str}
	// tools: [greet.hello]
	// packs: [greet]
}

func ExampleDefaultRank() {
	items := []ot.SearchItem{
		{Kind: ot.KindTool, Name: "scaffold.create", Description: "Create a project from a template."},
		{Kind: ot.KindPack, Name: "scaffold", Description: "Project templates."},
		{Kind: ot.KindTool, Name: "web.fetch", Description: "Fetch a page."},
	}
	for _, h := range ot.DefaultRank("scaffoldl", items) {
		fmt.Println(items[h.Index].Name)
	}
	// Output:
	// scaffold
	// scaffold.create
}
