/**
 * `petload k8s <scenario> --target URL --shards N --image IMAGE --keys-secret NAME`: prints the Kubernetes
 * manifests of a sharded run (src/k8s/manifests.ts) as YAML on stdout, for `kubectl apply -f -`. Nothing is sent
 * anywhere and no key is read: the keys stay in the Secret. The procedure is in docs/kubernetes.md.
 * This file is the command; its flags are declared in ./k8s-args.ts (which also gives their inferred type to
 * ./k8s-manifests.ts), and what it does (./k8s-manifests.ts, which loads the scenario schema) is imported when it runs.
 */
import { command } from './command.js';
import { k8sOptions } from './k8s-args.js';

export const k8sCommand = command({
  command: 'k8s <scenario>',
  describe: 'Print the Kubernetes manifests (Indexed Job of shards, merge Job, volume) of a sharded run',
  builder: k8sOptions,
  handler: async (a) => {
    (await import('./one-shot.js')).parseWithoutCompiling();
    const { printManifests } = await import('./k8s-manifests.js');
    await printManifests(a);
  },
});
