/**
 * Security contexts that pass Pod Security "restricted" (Kubernetes docs "Pod Security
 * Standards › Restricted"): non-root, seccomp `RuntimeDefault`, no privilege escalation, every
 * capability dropped — on every container tinyhost provisions (module, broker, collector) — and a
 * read-only root filesystem, so whatever a container writes goes to a volume it declares.
 */

/** A pod-level security context for `uid` (also its group and fsGroup). */
export function podSecurityContext(uid: number): Record<string, unknown> {
  return { runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, fsGroup: uid, seccompProfile: { type: "RuntimeDefault" } };
}

/** A container-level security context: the restricted rules plus a read-only root filesystem. */
export function restrictedContainerSecurityContext(): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  };
}
