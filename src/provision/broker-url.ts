/**
 * The NATS broker URL the modules connect to, with the token from the broker's auth Secret
 * (`tiny`'s `BrokerURL`, provision.md §2 step 9).
 */
import { isNotFound, secrets, type KubeClient } from "../k8s/client/index.ts";

/** Name of the broker's client Service and StatefulSet (provision.md §5.3). */
export const NATS_NAME = "tinysystems-nats";
/** Secret holding the broker token under key {@link NATS_TOKEN_KEY} (provision.md §5.3). */
export const NATS_AUTH_SECRET = "tinysystems-nats-auth";
/** Key of the token in {@link NATS_AUTH_SECRET}. */
export const NATS_TOKEN_KEY = "token";
/** Client port of the broker. */
export const NATS_CLIENT_PORT = 4222;

/**
 * `nats://<token>@tinysystems-nats.<ns>.svc:4222`, or `nats://tinysystems-nats.<ns>.svc:4222`
 * when the token is empty. The token is percent-encoded (Go inserts it raw; a generated token is
 * alphanumeric, so both agree on it).
 * @param namespace - broker namespace. @param token - broker token; empty = none.
 */
export function brokerUrl(namespace: string, token = ""): string {
  const auth = token ? `${encodeURIComponent(token)}@` : "";
  return `nats://${auth}${NATS_NAME}.${namespace}.svc:${NATS_CLIENT_PORT}`;
}

/**
 * Reads the token from Secret `tinysystems-nats-auth` (key `token`, base64 in `data`) and returns
 * {@link brokerUrl}. A missing Secret, key or empty token gives the tokenless URL, as in `tiny`.
 * @throws KubeApiError for errors other than NotFound (e.g. Forbidden) and KubeConnectionError —
 *   `tiny` swallows those too; we do not, since the next apply would fail the same way.
 */
export async function readBrokerUrl(kube: KubeClient, namespace: string): Promise<string> {
  try {
    const secret = await kube.get(secrets, NATS_AUTH_SECRET, namespace);
    const encoded = secret.data?.[NATS_TOKEN_KEY] ?? "";
    return brokerUrl(namespace, Buffer.from(encoded, "base64").toString("utf8"));
  } catch (e) {
    if (isNotFound(e)) return brokerUrl(namespace);
    throw e;
  }
}

/** The URL with its token replaced by `***`, for logs and reports. */
export function redactBrokerUrl(url: string): string {
  return url.replace(/^nats:\/\/[^@/]+@/, "nats://***@");
}
