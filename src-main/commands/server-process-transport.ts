import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * A stdio server's transport that knows when its process is gone. The MCP library ends the process of
 * a connection that failed in the background, so closing the client does not wait for it: without
 * this, Deskhand could quit first and leave a server that ignores its closed input running. It reports
 * its pid when started and when gone (ExternalServersOptions.processes), for a host killed before it
 * could end it. (Not a process group of its own: the MCP library spawns without `detached`; what a
 * server started is found through /proc when a left-over one is ended, see endOrphanServers.)
 */
export class ServerProcessTransport extends StdioClientTransport {
  private markGone: () => void = () => undefined;
  readonly gone = new Promise<void>((resolve) => (this.markGone = resolve));

  constructor(
    params: StdioServerParameters,
    private readonly onStarted: (pid: number) => void,
    private readonly onEnded: (pid: number) => void,
  ) {
    super(params);
  }

  override async start(): Promise<void> {
    try {
      await super.start();
    } catch (error) {
      this.markGone();
      throw error;
    }
    const pid = this.pid;
    if (pid !== null) {
      this.onStarted(pid);
      void this.gone.then(() => this.onEnded(pid));
    }
    // The client set its own onclose before starting the transport; it is called on the process's close.
    const clientOnClose = this.onclose;
    this.onclose = () => {
      this.markGone();
      clientOnClose?.();
    };
  }
}
