/**
 * The console of local mode: a page served on a loopback port that shows the flow as a graph, each
 * node's status and last error, and a live stream of every hop, with buttons and a form that send
 * messages into the flow (the local stand-in for the dashboard). Entry point: {@link LocalConsole},
 * a runnable added to the local host's manager; `tinyhost send --local` talks to its API
 * ({@link sendToConsole}).
 */
export { LocalConsole, type LocalConsoleOptions, type ConsoleRunHost } from "./console.ts";
export { parseConsoleAddress, ConsoleAddressError, DEFAULT_CONSOLE_ADDRESS, DEFAULT_CONSOLE_PORT, type ConsoleAddress } from "./address.ts";
export { consoleApp, snapshot, SEND_TIMEOUT_MS, type ConsoleHost, type ConsoleState, type SendAnswer, type SendTarget } from "./api.ts";
export { HopHistory, HOP_HISTORY, hopEvent, matches, type HopEvent, type HopFilter, type LastError } from "./history.ts";
export { flowView, buttonsOf, type FlowView, type NodeView, type EdgeView, type PortView } from "./flow-view.ts";
export { resolveNode, NodeLookupError } from "./resolve.ts";
export { consoleFile, readConsoleRecord, writeConsoleRecord, removeConsoleRecord, ConsoleNotFoundError, type ConsoleRecord } from "./discovery.ts";
export { sendToConsole, ConsoleSendError, type ConsoleSendOptions } from "./client.ts";
