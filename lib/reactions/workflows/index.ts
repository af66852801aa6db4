// Workflows, a kind of reaction: each instance a stream of its own (workflow-events) whose inputs and
// outputs are recorded by one step per input (workflow-step), planned as an effect of the input's source or
// timer firing, with the options and outputs of its own (workflow-options) and the class (workflow).
export { Workflow } from './workflow';
export type { LoadedInstance } from './workflow';
export { complete } from './workflow-options';
export type { CompleteOutput, DecideContext, WorkflowDecision, WorkflowOptions, WorkflowSnapshots } from './workflow-options';
export type { WorkflowInput, WorkflowMessage, WorkflowOutput } from './workflow-events';
