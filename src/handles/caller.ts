/** Typed access to registered operations: argument and result types come from the zod schemas. */
import type { z } from "zod";
import type { CallContext } from "../dispatch.js";
import type { OpName, RegisteredOp } from "../ops/index.js";

type OpOf<N extends OpName> = Extract<RegisteredOp, { name: N }>;

/** Arguments of operation N, as a caller writes them (defaults optional). */
export type OpInput<N extends OpName> = z.input<OpOf<N>["input"]>;

/** Result of operation N. */
export type OpOutput<N extends OpName> = z.output<OpOf<N>["output"]>;

/** Calls an operation by name with typed arguments; rejects with ClawError. */
export type Caller<M extends OpName = OpName> = <N extends M>(
  name: N,
  args: OpInput<N>,
  ctx?: CallContext,
) => Promise<OpOutput<N>>;
