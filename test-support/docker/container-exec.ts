import type Docker from 'dockerode';
import { demuxLog } from '../../apps/controller/src/drivers/compute/docker/container-log.ts';

/** Runs `cmd` in a running container (as `user`, else the image's) and returns its exit code and output, stdout and stderr in order. */
export async function execInContainer(docker: Docker, id: string, cmd: string[], user?: string): Promise<{ code: number; output: string }> {
  const run = await docker.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, ...(user ? { User: user } : {}) });
  const stream = await run.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve());
  });
  const { ExitCode } = await run.inspect();
  return { code: ExitCode ?? -1, output: demuxLog(Buffer.concat(chunks)) };
}
