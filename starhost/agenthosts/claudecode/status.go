package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

// Status is the part of Claude Code's status-line JSON crystal-star reads.
type Status struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Model     struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version string `json:"version"`
	Cost    struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		Size           int      `json:"context_window_size"`
		UsedPercentage *float64 `json:"used_percentage"`
	} `json:"context_window"`
}

// StatusFields are the built-in status fields a status line drawn for
// Claude Code fills from its JSON; the operator places them with
// status_line in config.toml like plugin fields.
var StatusFields = []string{"model", "cwd", "context", "cost", "session"}

// ParseStatus decodes Claude Code's status-line JSON.
func ParseStatus(data []byte) (*Status, error) {
	var st Status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("the status input is not Claude Code's status JSON: %v", err)
	}
	if st.SessionID == "" {
		return nil, fmt.Errorf("the status input has no session_id: is this command Claude Code's statusLine?")
	}
	if st.Workspace.CurrentDir == "" {
		st.Workspace.CurrentDir = st.Cwd
	}
	return &st, nil
}

// Dir is the directory the session works in: the project directory, else
// the current one.
func (st *Status) Dir() string {
	if st.Workspace.ProjectDir != "" {
		return st.Workspace.ProjectDir
	}
	return st.Workspace.CurrentDir
}

// Builtin returns the text of a built-in status field (StatusFields).
func (st *Status) Builtin(name string) string {
	switch name {
	case "model":
		if st.Model.DisplayName != "" {
			return st.Model.DisplayName
		}
		return st.Model.ID
	case "cwd":
		return st.Workspace.CurrentDir
	case "context":
		if st.ContextWindow.UsedPercentage != nil {
			return fmt.Sprintf("%.0f%% context", *st.ContextWindow.UsedPercentage)
		}
	case "cost":
		if st.Cost.TotalCostUSD != nil {
			return fmt.Sprintf("$%.2f", *st.Cost.TotalCostUSD)
		}
	case "session":
		return st.SessionID
	}
	return ""
}

// Line makes text one terminal-safe line, as Claude Code shows the first
// line of a status command's output.
func Line(text string) string {
	text = strings.Join(strings.Fields(strings.ReplaceAll(text, "\n", " ")), " ")
	return starhost.TerminalSafe(text)
}
