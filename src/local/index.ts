/**
 * Local mode: TinyNodes from YAML manifests, run in this process without a cluster by the same
 * TinyNode controller a cluster runs. Entry point: {@link LocalHost.start}. `tinyhost run --local
 * <dir>` and `tinyhost demo` use it.
 */
export { LocalHost, chooseModuleName, type LocalHostOptions } from "./host.ts";
export { LocalTerminal, nothingRunsHint, type LocalTerminalHost } from "./terminal.ts";
export * from "./constants.ts";
export { LocalModuleClient, InvalidPortError } from "./client.ts";
export { ManifestError, LocalStartError, StateLockedError, UndeclaredNodeError, UndeclaredPortError, type ManifestErrorCode } from "./errors.ts";
export { acquireStateLock, processIsAlive, STATE_LOCK_SUFFIX, type StateLock, type StateLockOptions } from "./state-lock.ts";
export { FailureLog, type FailureLogOptions } from "./failure-log.ts";
export { RepeatLimiter, DEFAULT_REPEAT_WINDOW_MS, type Schedule } from "./repeat-limiter.ts";
export { edgeProblems, type EdgeCheckContext, type RunningPorts } from "./edge-check.ts";
export { shownPath } from "./paths.ts";
export { parseManifestFile, readManifestDir, isManifestFile, type FileManifests, type NodeManifest, type NamedManifest } from "./manifests.ts";
export { collectDesired, diffNodes, nodeChanged, type DesiredSet, type NodeDiff } from "./desired.ts";
export { readStateFile, writeStateFile, StateFileWriter, StateFileError, STATE_FILE_NAME, LEGACY_STATE_FILE_NAME, STATE_FILE_VERSION, stateFilePath, migrateLegacyStateFile, type StateFileContents } from "./state-file.ts";
export { LocalNodes, WATCH_HISTORY, type LocalNodesOptions, type NodeChange, type NodeSeed } from "./node-api.ts";
export { DirectorySource, type DirectorySourceOptions } from "./directory-source.ts";
export { importComponentFile, loadComponentDir, type LoadedComponent, type ComponentDirResult } from "./components.ts";
export { ComponentFiles, type ComponentFilesHost } from "./component-files.ts";
export { LocalReport, controlValue, type Problem } from "./report.ts";
export { watchDirectory, type WatchOptions } from "./watch.ts";
