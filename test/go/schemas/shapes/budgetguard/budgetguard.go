// Package budgetguard declares the port types of common-module `budgetguard` (component `budget_guard`).
package budgetguard

type Context any

type Settings struct {
	MaxIterations int     `json:"maxIterations" required:"true" title:"Max Iterations" description:"How many times the loop may go round before it is cut off."`
	MaxTokens     int     `json:"maxTokens,omitempty" title:"Max Tokens" description:"Total input+output tokens the loop may spend. 0 means no token ceiling — iterations still apply."`
	MaxCostUSD    float64 `json:"maxCostUSD,omitempty" title:"Max Cost (USD)" description:"Total spend the loop may reach, using the cost you supply per iteration. 0 means no cost ceiling."`
}

type Request struct {
	Context      Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Loop payload — passed through unchanged so the next iteration can carry on."`
	Iteration    int     `json:"iteration,omitempty" title:"Iteration" description:"Zero or absent on first arrival. Map the value from proceed back here on each pass."`
	InputTokens  int     `json:"inputTokens,omitempty" title:"Input Tokens" description:"Tokens used by THIS iteration — map from the model's usage. Accumulated by the guard."`
	OutputTokens int     `json:"outputTokens,omitempty" title:"Output Tokens" description:"Tokens produced by THIS iteration — map from the model's usage."`
	CostUSD      float64 `json:"costUSD,omitempty" title:"Cost (USD)" description:"Cost of THIS iteration, if you price it. Accumulated by the guard."`
	SpentTokens  int     `json:"spentTokens,omitempty" title:"Spent Tokens" description:"Running total so far. Map from proceed."`
	SpentUSD     float64 `json:"spentUSD,omitempty" title:"Spent (USD)" description:"Running total so far. Map from proceed."`
}

type Proceed struct {
	Context     Context `json:"context,omitempty" configurable:"true" title:"Context"`
	Iteration   int     `json:"iteration" title:"Iteration" description:"Incremented. Map back into the guard on the next pass."`
	SpentTokens int     `json:"spentTokens" title:"Spent Tokens" description:"Running total including this iteration."`
	SpentUSD    float64 `json:"spentUSD" title:"Spent (USD)" description:"Running total including this iteration."`
	Remaining   int     `json:"remainingIterations" title:"Remaining Iterations"`
}

type Exceeded struct {
	Context     Context `json:"context,omitempty" configurable:"true" title:"Context" description:"Loop payload at the moment it was cut off — enough to report or resume deliberately."`
	Reason      string  `json:"reason" title:"Reason" description:"Which ceiling was reached: iterations, tokens, or cost."`
	Iteration   int     `json:"iteration" title:"Iteration"`
	SpentTokens int     `json:"spentTokens" title:"Spent Tokens"`
	SpentUSD    float64 `json:"spentUSD" title:"Spent (USD)"`
}
