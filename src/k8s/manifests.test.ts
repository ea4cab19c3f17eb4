/**
 * The manifests of `petload k8s`, printed by the real CLI, validated against the Kubernetes JSON schemas bundled in
 * kubernetes-models (offline), and read for what the issue asks of them.
 */
import { execFileSync } from 'node:child_process';
import { ConfigMap, type IConfigMap, type IPersistentVolumeClaim, PersistentVolumeClaim } from 'kubernetes-models/v1';
import { type IJob, Job } from 'kubernetes-models/batch/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli, scratch } from '../testing/cli.js';
import { buildManifests, shellQuote, type Manifest } from './manifests.js';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/PersistentVolumeClaim': PersistentVolumeClaim as never,
  'v1/ConfigMap': ConfigMap as never,
  'batch/v1/Job': Job as never,
};

function validate(m: Manifest): void {
  const Model = MODELS[`${m.apiVersion}/${m.kind}`];
  if (!Model) throw new Error(`no schema for ${m.apiVersion} ${m.kind}`);
  new Model(m as never).validate();
}

/** A printed document, read through the types of the Kubernetes objects it is validated as. */
type Doc = IPersistentVolumeClaim | IConfigMap | IJob;

const FLAGS = [
  '--target',
  'https://staging.example.com/v1',
  '--image',
  'registry.example.com/petload:0.1.0',
  '--keys-secret',
  'petload-keys',
];

async function printed(args: string[]): Promise<Doc[]> {
  const r = await runCli(['k8s', ...args]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Doc);
}

function shellSyntaxOk(script: string): void {
  execFileSync('/bin/sh', ['-n', '-c', script]);
}

describe('petload k8s', () => {
  it('prints a reports volume, an Indexed Job of shards and a merge Job, each valid against the Kubernetes schemas', async () => {
    const docs = await printed([
      'smoke',
      ...FLAGS,
      '--shards',
      '3',
      '--start-at',
      '2030-01-01T12:00:00Z',
      '--threshold',
      'p(95) < 250ms',
    ]);
    expect(docs.map((d) => d.kind)).toEqual(['PersistentVolumeClaim', 'Job', 'Job']);
    for (const d of docs) validate(d as Manifest);

    const [pvc, shards, merge] = docs as [IPersistentVolumeClaim, IJob, IJob];
    expect(pvc.spec!.accessModes).toEqual(['ReadWriteMany']);
    expect(shards.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimit: 0 });
    const pod = shards.spec!.template.spec!;
    expect(pod.restartPolicy).toBe('Never');
    const c = pod.containers[0]!;
    // The keys: a file from the Secret; the environment only names the file.
    const keysVolume = pod.volumes!.find((v) => v.secret)!;
    expect(keysVolume.secret!.secretName).toBe('petload-keys');
    const keysMount = c.volumeMounts!.find((m) => m.name === keysVolume.name)!;
    expect(keysMount.readOnly).toBe(true);
    expect(c.env).toEqual([{ name: 'PETLOAD_KEYS_FILE', value: `${keysMount.mountPath}/keys.json` }]);
    expect(JSON.stringify(docs)).not.toMatch(/secretKeyRef|envFrom|PETLOAD_KEYS"/);
    const script = c.command![2]!;
    shellSyntaxOk(script);
    expect(script).toContain(
      'petload run smoke --target https://staging.example.com/v1 --shards 3 --start-at 2030-01-01T12:00:00.000Z --run-id ',
    );
    expect(script).toContain("--threshold 'p(95) < 250ms'");
    expect(script).toMatch(/--report-dir \/reports\/smoke-[0-9a-f]{12}\/shard-"\$JOB_COMPLETION_INDEX"/);
    // Reports on the shared volume, for the merge step.
    expect(pod.volumes!.find((v) => v.persistentVolumeClaim)!.persistentVolumeClaim!.claimName).toBe(
      pvc.metadata!.name,
    );

    expect(merge.spec!.backoffLimit).toBe(0);
    const mpod = merge.spec!.template.spec!;
    expect(mpod.restartPolicy).toBe('Never');
    expect(mpod.volumes!.find((v) => v.persistentVolumeClaim)!.persistentVolumeClaim!.claimName).toBe(
      pvc.metadata!.name,
    );
    expect(JSON.stringify(mpod)).not.toContain('petload-keys');
    shellSyntaxOk(mpod.initContainers![0]!.command![2]!);
    const mergeScript = mpod.containers[0]!.command![2]!;
    shellSyntaxOk(mergeScript);
    const run = shards.metadata!.labels!['petload.dev/run-id'];
    expect(mergeScript).toContain(
      `petload merge /reports/${run}/shard-0/report.json /reports/${run}/shard-1/report.json /reports/${run}/shard-2/report.json --out /reports/${run}/merged`,
    );
  });

  it('puts a scenario file in a ConfigMap mounted into the shards', async () => {
    const dir = scratch();
    const file = dir.file(
      'nightly.yaml',
      'name: nightly\ndescription: a nightly run\nload:\n  phases:\n    - { executor: constant-rate, rate: 20/s, duration: 1m }\n',
    );
    const docs = await printed([
      file,
      ...FLAGS,
      '--shards',
      '2',
      '--namespace',
      'load',
      '--storage-class',
      'nfs',
      '--run-id',
      'nightly-1',
    ]);
    expect(docs.map((d) => d.kind)).toEqual(['PersistentVolumeClaim', 'ConfigMap', 'Job', 'Job']);
    for (const d of docs) {
      validate(d as Manifest);
      expect(d.metadata!.namespace).toBe('load');
    }
    const [pvc, configMap, shards] = docs as [IPersistentVolumeClaim, IConfigMap, IJob, IJob];
    expect(configMap.data!['nightly.yaml']).toContain('name: nightly');
    expect(pvc.spec!.storageClassName).toBe('nfs');
    const pod = shards.spec!.template.spec!;
    expect(pod.volumes!.find((v) => v.configMap)!.configMap!.name).toBe(configMap.metadata!.name);
    expect(pod.containers[0]!.command![2]).toContain('petload run /etc/petload/scenario/nightly.yaml ');
    expect(shards.metadata!.name).toBe('petload-nightly-1');
  });

  it('the schemas do catch a broken manifest (the validation is not a formality)', () => {
    const [, job] = buildManifests({
      scenario: { name: 'smoke' },
      target: 'https://x.example/v1',
      shards: 2,
      image: 'i',
      keysSecret: 's',
      keysSecretKey: 'keys.json',
      runId: 'r',
      startAt: '2030-01-01T00:00:00.000Z',
      storage: '1Gi',
      mergeWaitSeconds: 60,
    }) as [Manifest, IJob];
    expect(() => validate(job as Manifest)).not.toThrow();
    const broken = structuredClone(job);
    // A string where the schema wants an integer: not a type the IJob interface admits.
    Object.assign(broken.spec!, { backoffLimit: '0' });
    expect(() => validate(broken as Manifest)).toThrow(/backoffLimit/);
    const noContainers = structuredClone(job);
    // A required property removed: `delete` would not type-check.
    Reflect.deleteProperty(noContainers.spec!.template.spec!, 'containers');
    expect(() => validate(noContainers as Manifest)).toThrow(/containers/);
  });

  it('refuses in one line: a loopback target, too few connections for the shards, a bad secret name, a bad override', async () => {
    for (const [args, message] of [
      [['capacity', ...FLAGS, '--shards', '2', '--duration', '0s'], /--duration "0s": expected a duration above zero/],
      [
        ['compliance', ...FLAGS, '--shards', '2', '--rate', '5/s'],
        /--rate and --duration change load phases, and scenario compliance has none/,
      ],
      [
        ['smoke', ...FLAGS.slice(2), '--target', 'http://127.0.0.1:8080/v1', '--shards', '2'],
        /--target: http:\/\/127.0.0.1:8080\/v1 is a loopback address/,
      ],
      [['capacity', ...FLAGS, '--shards', '200'], /load.phases\[0\] has \d+ connections, fewer than the shards/],
      [
        ['smoke', ...FLAGS.slice(0, 4), '--keys-secret', 'Bad_Name', '--shards', '2'],
        /--keys-secret: expected the name of a Secret/,
      ],
    ] as const) {
      const r = await runCli(['k8s', ...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toMatch(message);
    }
  });

  it('quotes for the shell whatever is not a plain word', () => {
    expect(shellQuote('https://a.example/v1')).toBe('https://a.example/v1');
    expect(shellQuote('p(95) < 250ms')).toBe("'p(95) < 250ms'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('')).toBe("''");
  });
});
