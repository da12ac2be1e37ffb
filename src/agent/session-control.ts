/**
 * Requests between nodes about the runs each one holds. A run lives in the memory of the node
 * that started it (its model stream, its bash), so `abort` reaching another node behind a load
 * balancer is passed to the run's node over the `nodes` bus, which every node follows (on
 * PostgreSQL the bus reaches all of them); the answer comes back the same way once the run has
 * stopped. Requests and answers are ordinary bus events, so a lost notification costs latency
 * (the bus catches up from its table), never the request. The bus is reserved (only the
 * server's own services write it), and a request is acted on only when the database says its
 * sender is a live node and the run is this node's: an event is never trusted on its own.
 */
import { randomUUID } from "node:crypto";
import type { BusService } from "../bus/bus-service.js";
import { ClawError } from "../core/errors.js";

/** The bus nodes talk to each other on. */
export const NODES_BUS = "nodes";

/** How long an abort waits for the run's node to answer before it is reported as failed. */
export const REMOTE_ABORT_WAIT_MS = 10_000;

type Request = { type: "abort_run"; requestId: string; node: string; from: string; sessionId: string; runId: string };
type Answer = { type: "run_aborted"; requestId: string; node: string; to: string; aborted: boolean };

/** This node's end of the channel. */
export class SessionControl {
  private readonly answers = new Map<string, (aborted: boolean) => void>();
  private unfollow = () => {};

  /**
   * @param abortLocal Aborts the session's run `runId` here and resolves, once it has stopped,
   *   to whether it was running.
   * @param isLiveNode Asks the database whether `node` is a live node (the sender of a request).
   */
  constructor(
    private readonly bus: BusService,
    private readonly node: string,
    private readonly abortLocal: (sessionId: string, runId: string) => Promise<boolean>,
    private readonly isLiveNode: (node: string) => Promise<boolean>,
  ) {}

  /** Starts following the `nodes` bus. */
  start(): void {
    this.unfollow = this.bus.listen(NODES_BUS, (events) => {
      for (const e of events) this.receive(e.payloadJson);
    });
  }

  /** Asks `node` to abort `runId` of `sessionId`; resolves to its answer once the run stopped. */
  async abort(node: string, sessionId: string, runId: string): Promise<boolean> {
    const requestId = randomUUID();
    const answered = new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answers.delete(requestId);
        reject(
          new ClawError("node_unreachable", `node ${node}, which runs ${runId}, did not answer the abort within 10 s`, {
            node,
            runId,
          }),
        );
      }, REMOTE_ABORT_WAIT_MS);
      this.answers.set(requestId, (aborted) => {
        clearTimeout(timer);
        this.answers.delete(requestId);
        resolve(aborted);
      });
    });
    const request: Request = { type: "abort_run", requestId, node, from: this.node, sessionId, runId };
    await this.bus.out(NODES_BUS, request).catch((err: unknown) => {
      this.answers.get(requestId)?.(false);
      throw err;
    });
    return answered;
  }

  /** Stops following; requests still waiting fail as the node goes away. */
  close(): void {
    this.unfollow();
    for (const answer of this.answers.values()) answer(false);
  }

  private receive(payloadJson: string): void {
    let msg: Request | Answer;
    try {
      msg = JSON.parse(payloadJson) as Request | Answer;
    } catch {
      return; // not ours: anyone holding the token may publish on any bus
    }
    if (msg?.type === "run_aborted" && msg.to === this.node) this.answers.get(msg.requestId)?.(msg.aborted === true);
    if (msg?.type === "abort_run" && msg.node === this.node && typeof msg.sessionId === "string") {
      const req = msg;
      void this.isLiveNode(String(req.from))
        .then((live) => (live ? this.abortLocal(req.sessionId, String(req.runId)) : false))
        .then(
          (aborted) => this.answer(req, aborted),
          () => this.answer(req, false),
        );
    }
  }

  private answer(req: Request, aborted: boolean): void {
    const answer: Answer = { type: "run_aborted", requestId: req.requestId, node: this.node, to: req.from, aborted };
    void this.bus.out(NODES_BUS, answer).catch(() => {}); // the asker's wait ends in its timeout
  }
}
