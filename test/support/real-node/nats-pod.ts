/**
 * A NATS server as a pod on the real node (test/support/real-node/node.ts): a Deployment named
 * `nats` from the local image of Debian's nats-server (scripts/image/nats-image.ts), JetStream on
 * an emptyDir, no auth, and a Service `nats` on 4222 — what a test or a benchmark points module
 * pods at (`nats://nats.<namespace>.svc:4222`). A pod rather than the test bed's host NATS: that
 * one listens on 127.0.0.1, which a pod cannot reach. The host reaches the pod's IP directly (the
 * node routes the pod network).
 */
import { NATS_UID } from "../../../src/provision/nats.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "../../../src/provision/security.ts";

/** The Deployment and Service bodies (POST them into one namespace); pods labelled `app=nats`. */
export function natsPodObjects(image: string) {
  const labels = { app: "nats" };
  return {
    deployment: {
      metadata: { name: "nats", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            securityContext: podSecurityContext(NATS_UID),
            containers: [
              {
                name: "nats",
                image,
                imagePullPolicy: "Never",
                args: ["--jetstream", "--store_dir", "/data", "--http_port", "8222"],
                ports: [
                  { name: "client", containerPort: 4222 },
                  { name: "monitor", containerPort: 8222 },
                ],
                readinessProbe: { httpGet: { path: "/healthz", port: "monitor" }, periodSeconds: 1 },
                resources: { requests: { cpu: "20m", memory: "32Mi" }, limits: { memory: "256Mi" } },
                securityContext: restrictedContainerSecurityContext(),
                volumeMounts: [{ name: "data", mountPath: "/data" }],
              },
            ],
            volumes: [{ name: "data", emptyDir: {} }],
          },
        },
      },
    },
    service: { metadata: { name: "nats" }, spec: { selector: labels, ports: [{ name: "client", port: 4222, targetPort: "client" }] } },
  };
}
