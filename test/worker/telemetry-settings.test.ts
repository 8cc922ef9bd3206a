// The settings of traces and metrics, each mistake named with the variable or flag at fault.
import { describe, expect, it } from 'vitest';
import { metricsAddress } from '../../worker/metrics/metrics-address.js';
import { startTracing } from '../../worker/tracing/setup.js';
import { tracingWanted } from '../../worker/tracing/wanted.js';

describe('metrics address', () => {
  it('takes a port (every interface) or host:port, the flag before LOOM_METRICS_PORT', () => {
    expect(metricsAddress(undefined, {})).toBeUndefined();
    expect(metricsAddress(undefined, { LOOM_METRICS_PORT: '9464' })).toEqual({
      bindAddress: '0.0.0.0:9464',
      source: 'LOOM_METRICS_PORT',
    });
    expect(metricsAddress('127.0.0.1:9100', { LOOM_METRICS_PORT: '9464' })).toEqual({
      bindAddress: '127.0.0.1:9100',
      source: '--metrics-port',
    });
    expect(() => metricsAddress('http://x:1', {})).toThrow(
      '--metrics-port is "http://x:1": give a port (9464) or host:port (127.0.0.1:9464).',
    );
    expect(() => metricsAddress(undefined, { LOOM_METRICS_PORT: '70000' })).toThrow('LOOM_METRICS_PORT is "70000"');
  });
});

describe('traces', () => {
  it('are wanted only with an OTLP endpoint, and not when switched off', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(
      false,
    );
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(
      false,
    );
  });

  it('refuse what Loom cannot send, naming the variable', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => startTracing({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL is "grpc": Loom sends traces over OTLP/HTTP (http/protobuf or http/json); point OTEL_EXPORTER_OTLP_ENDPOINT at the collector\'s HTTP port (usually 4318).',
    );
    expect(() => startTracing({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      'OTEL_TRACES_EXPORTER is "zipkin": Loom sends traces with OTLP only',
    );
    expect(() => startTracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' })).toThrow(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is "collector:4318": give the collector\'s OTLP/HTTP address, such as http://localhost:4318.',
    );
    expect(startTracing({})).toBeUndefined();
  });
});
