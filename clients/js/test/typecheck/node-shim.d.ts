// The little of Node's types that index.d.ts names, for `tsc --noEmit` where @types/node is not
// installed (Debian ships TypeScript without it). Not part of the package.
declare module 'node:https' {
  export class Agent {
    constructor(options?: { ca?: string; keepAlive?: boolean });
  }
}
declare class Buffer {}
