/**
 * Errors of the provisioner. Every one carries a stable `code`; input errors name the flag or
 * field and the value that was refused.
 */
import { TinyError, messageOf } from "../core/errors.ts";

/** Base class: a provisioning step failed (a {@link TinyError}: `code` e.g. `PROVISION_INPUT`). */
export class ProvisionError extends TinyError {
  /** @param code - stable code. @param message - what failed, naming the object or flag. */
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "ProvisionError";
  }
}

/** A flag or option value is unusable (code `PROVISION_INPUT`). Nothing was sent to the cluster. */
export class ProvisionInputError extends ProvisionError {
  /** The option at fault, e.g. `--image`. */
  readonly field: string;

  /** @param field - option name. @param problem - what is wrong, quoting the value. */
  constructor(field: string, problem: string) {
    super("PROVISION_INPUT", `${field} ${problem}`);
    this.name = "ProvisionInputError";
    this.field = field;
  }
}

/**
 * The release already runs an image from another repository (code `PROVISION_IMAGE_MISMATCH`):
 * the guard `tiny` keeps against overwriting another publisher's module (provision.md §3.2
 * "Identity", §8).
 */
export class ReleaseImageMismatchError extends ProvisionError {
  /** @param release - release name. @param running - image recorded on the Deployment. @param wanted - image asked for. */
  constructor(release: string, running: string, wanted: string) {
    super(
      "PROVISION_IMAGE_MISMATCH",
      `release ${JSON.stringify(release)} already runs image ${JSON.stringify(running)}; refusing to replace it with ${JSON.stringify(wanted)} ` +
        `from another repository (choose another --name, or delete the release first)`,
    );
    this.name = "ReleaseImageMismatchError";
  }
}

/** A CustomResourceDefinition did not become Established in time, or its names were refused (code `PROVISION_CRD`). */
export class CrdNotEstablishedError extends ProvisionError {
  /** @param crd - CRD name. @param why - the condition message or "timed out after N ms". */
  constructor(crd: string, why: string) {
    super("PROVISION_CRD", `CRD ${crd} is not Established: ${why}`);
    this.name = "CrdNotEstablishedError";
  }
}

/** Applying one object failed (code `PROVISION_APPLY`); the cause is the API error. */
export class ApplyObjectError extends ProvisionError {
  /** `Kind ns/name` of the object. */
  readonly object: string;

  /** @param object - `Kind ns/name`. @param cause - the client error. */
  constructor(object: string, cause: unknown) {
    super("PROVISION_APPLY", `applying ${object}: ${messageOf(cause)}`, { cause });
    this.name = "ApplyObjectError";
    this.object = object;
  }
}

/**
 * `--autoscale` asked for, but the cluster serves no KEDA resource it needs (code `PROVISION_NO_KEDA`).
 * Raised by discovery before anything is applied.
 */
export class KedaMissingError extends ProvisionError {
  /** @param resource - the missing resource, e.g. `scaledobjects.keda.sh`. */
  constructor(resource: string) {
    super("PROVISION_NO_KEDA", `KEDA is not installed in this cluster (no ${resource}): install KEDA or drop --autoscale`);
    this.name = "KedaMissingError";
  }
}
