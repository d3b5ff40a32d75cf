package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kgen-dev/kgen/gen"
	"github.com/kgen-dev/kgen/gen/expand"
)

type listFlags struct {
	json                  bool
	family, arch, backend string
}

// listEntry is one variant in `gen list --json`.
type listEntry struct {
	Name     string            `json:"name"`
	Family   string            `json:"family"`
	Backend  string            `json:"backend"`
	Arch     string            `json:"arch"`
	Dtype    string            `json:"dtype"`
	Pack     string            `json:"pack,omitempty"`
	Rows     string            `json:"rows,omitempty"`
	Tile     string            `json:"tile,omitempty"`
	Tokens   string            `json:"tokens,omitempty"`
	Params   map[string]string `json:"params"`
	Artifact string            `json:"artifact"`
}

func newListCmd(rf *rootFlags) *cobra.Command {
	f := &listFlags{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the variants the spec expands to (nothing is written)",
		Example: `  gen list --arch gfx1200
  gen list --json --family gemv --backend vulkan | jq length`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := rf.options(cmd)
			if err != nil {
				return err
			}
			plan, err := gen.Load(o)
			if err != nil {
				return err
			}
			var sel []*expand.Variant
			for _, v := range plan.Variants {
				if (f.family == "" || v.Family.Name == f.family) && (f.arch == "" || v.Arch.Name == f.arch) &&
					(f.backend == "" || v.Arch.Backend == f.backend) {
					sel = append(sel, v)
				}
			}
			if f.family != "" && plan.Spec.Family(f.family) == nil {
				return &exitError{2, fmt.Errorf("--family %q: no such family", f.family)}
			}
			if f.arch != "" && plan.Spec.Arch(f.arch) == nil {
				return &exitError{2, fmt.Errorf("--arch %q: no such arch or device class (add templates/archs/%s.yaml)", f.arch, f.arch)}
			}
			if f.backend != "" && f.backend != "hip" && f.backend != "vulkan" {
				return &exitError{2, fmt.Errorf("--backend %q; allowed: hip, vulkan", f.backend)}
			}
			w := cmd.OutOrStdout()
			if f.json {
				entries := make([]listEntry, 0, len(sel))
				for _, v := range sel {
					entries = append(entries, listEntry{Name: v.Name, Family: v.Family.Name, Backend: v.Arch.Backend, Arch: v.Arch.Name,
						Dtype: v.Params["dtype"], Pack: v.Params["pack"], Rows: v.Params["rows"], Tile: v.Params["tile"], Tokens: v.Params["tokens"],
						Params: v.Params, Artifact: artifactPath(v)})
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "BACKEND\tARCH\tNAME\tARTIFACT")
			for _, v := range sel {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Arch.Backend, v.Arch.Name, v.Name, artifactPath(v))
			}
			tw.Flush()
			fmt.Fprintf(w, "%d variants\n", len(sel))
			return nil
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print a JSON array")
	cmd.Flags().StringVar(&f.family, "family", "", "only this family")
	cmd.Flags().StringVar(&f.arch, "arch", "", "only this arch or device class")
	cmd.Flags().StringVar(&f.backend, "backend", "", "only this backend (hip, vulkan)")
	return cmd
}

func artifactPath(v *expand.Variant) string {
	if v.Blob != "" {
		return "spirv/" + v.Blob + ".spv"
	}
	return fmt.Sprintf("hip/%s_%s.hip", v.Family.Name, v.Arch.Name)
}
