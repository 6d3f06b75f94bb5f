package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// FilesArgs are the arguments of the example's long-running tool.
type FilesArgs struct {
	Count int `json:"count" validate:"required,min=1,max=10" description:"How many files to process."`
}

// A tool reports progress through registry.ReportProgress, without
// importing this package; a client that sent a progress token receives
// notifications/progress, and structured results of any type arrive as
// objects ({"value": …} for a number).
func ExampleNewServer_progress() {
	ctx := context.Background()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	process := func(ctx context.Context, a FilesArgs) (result.Result[int], error) {
		for i := 1; i <= a.Count; i++ {
			_ = registry.ReportProgress(ctx, registry.Progress{Progress: float64(i), Total: float64(a.Count), Message: fmt.Sprintf("file %d", i)})
		}
		return result.Ok(a.Count), nil
	}
	if err := registry.AddFunc(reg, "process_files", process, registry.ToolOptions{Doc: "Processes files."}); err != nil {
		log.Fatal(err)
	}
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: slog.New(slog.DiscardHandler)})

	progress := make(chan *sdk.ProgressNotificationParams, 10)
	client := sdk.NewClient(&sdk.Implementation{Name: "client"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	params := &sdk.CallToolParams{Name: "process_files", Arguments: map[string]any{"count": 3}}
	params.SetProgressToken("job-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		p := <-progress
		fmt.Printf("%s: %v/%v %s\n", p.ProgressToken, p.Progress, p.Total, p.Message)
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text, res.StructuredContent)
	// Output:
	// job-1: 1/3 file 1
	// job-1: 2/3 file 2
	// job-1: 3/3 file 3
	// 3 map[value:3]
}
