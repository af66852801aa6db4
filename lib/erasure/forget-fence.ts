/** A load's place in the order of the forgets this process completed: taken before its first request. */
export interface FenceTicket {
  readonly epoch: number;
}

/**
 * Keeps a load that began before a forget from recording what it read once the forget is done. Every
 * forget this process completes moves the epoch on; each load takes a ticket (the epoch) before it reads
 * and gives it back when it is done. A subject forgotten since a ticket was taken is remembered while that
 * load is open, so what it found (a key read or made before the marker landed) is refused even if the
 * cache has dropped the forgotten entry meanwhile. Memory: one entry per forget during an open load.
 */
export class ForgetFence {
  private epoch = 0;
  /** How many loads are open, by the epoch they began at. */
  private readonly open = new Map<number, number>();
  /** Subjects forgotten while a load that began before was open: the epoch their forget completed at, and when it was. */
  private readonly forgets = new Map<string, { readonly epoch: number; readonly forgottenAt: string }>();

  /** A ticket for a load about to read. */
  begin(): FenceTicket {
    this.open.set(this.epoch, (this.open.get(this.epoch) ?? 0) + 1);
    return { epoch: this.epoch };
  }

  /** The load of `ticket` is done: what only it needed is let go. */
  end(ticket: FenceTicket): void {
    const count = (this.open.get(ticket.epoch) ?? 0) - 1;
    if (count > 0) this.open.set(ticket.epoch, count);
    else this.open.delete(ticket.epoch);
    this.prune();
  }

  /** This process completed a forget of `subject`. */
  forgot(subject: string, forgottenAt: string): void {
    this.epoch++;
    if (this.open.size > 0) this.forgets.set(subject, { epoch: this.epoch, forgottenAt });
  }

  /** When `subject` was forgotten, if this process completed a forget of it after the load of `ticket` began. */
  forgottenSince(subject: string, ticket: FenceTicket): string | undefined {
    const forget = this.forgets.get(subject);
    return forget !== undefined && forget.epoch > ticket.epoch ? forget.forgottenAt : undefined;
  }

  /** Forgets no open load began before are of no use any more. */
  private prune(): void {
    if (this.open.size === 0) {
      this.forgets.clear();
      return;
    }
    const oldest = Math.min(...this.open.keys());
    for (const [subject, forget] of this.forgets) if (forget.epoch <= oldest) this.forgets.delete(subject);
  }
}
