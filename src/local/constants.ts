/** Names and defaults of local mode (src/local). */

/** Annotation whose JSON value local mode sends to the node's `_control` port once it runs (the local `send_signal`). */
export const START_SIGNAL_ANNOTATION = "tinyhost.io/start-signal";

/** Component whose `port` metadata local mode seeds with the HTTP port (components.md §2.1: the persisted listen port). */
export const HTTP_SERVER_COMPONENT = "http_server";

/** Metadata key where http_server keeps its listen port (components.md §2.1). */
export const HTTP_PORT_METADATA_KEY = "port";

/** Module name when neither `--name` nor any node's `spec.module` gives one. */
export const DEFAULT_LOCAL_MODULE = "tinyhost";

/** Namespace reported to components when not given (the Go CLI's `--namespace` default, runtime-spec §9). */
export const DEFAULT_LOCAL_NAMESPACE = "tinysystems";
