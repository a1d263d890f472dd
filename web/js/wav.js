// A recording as WAV: the microphone's samples (floats, at the audio context's rate)
// turned into 16 kHz, mono, 16-bit PCM in a RIFF WAVE file. What the page sends as a
// voice note: every speech-to-text server reads it, whisper.cpp's whisper-server
// without ffmpeg too (it cannot read a browser's WebM or Ogg Opus; docs/DESIGN.md,
// "Voice notes"). Pure functions over arrays: no audio API here.

/// The rate the page records at: what Whisper models take, and a quarter of the bytes
/// of 48 kHz (a minute is 1.9 MB).
export const WAV_RATE = 16000;

/// `chunks` (Float32Arrays, one channel, at `rate`) resampled to `WAV_RATE` by
/// averaging each output sample's span (enough for speech; no aliasing filter needed
/// above 8 kHz for Whisper, which ignores it).
export function resample(chunks, rate) {
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const input = new Float32Array(total);
  let at = 0;
  for (const chunk of chunks) {
    input.set(chunk, at);
    at += chunk.length;
  }
  if (rate === WAV_RATE) return input;
  const ratio = rate / WAV_RATE;
  const output = new Float32Array(Math.floor(total / ratio));
  for (let i = 0; i < output.length; i++) {
    const from = Math.floor(i * ratio);
    const to = Math.min(total, Math.max(from + 1, Math.floor((i + 1) * ratio)));
    let sum = 0;
    for (let j = from; j < to; j++) sum += input[j];
    output[i] = sum / (to - from);
  }
  return output;
}

/// The samples (floats in [-1, 1], at `WAV_RATE`) as a WAV file's bytes.
export function encodeWav(samples) {
  const bytes = new Uint8Array(44 + samples.length * 2);
  const view = new DataView(bytes.buffer);
  const text = (offset, word) => [...word].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)));
  text(0, "RIFF");
  view.setUint32(4, 36 + samples.length * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true); // the format chunk's size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, WAV_RATE, true);
  view.setUint32(28, WAV_RATE * 2, true); // bytes a second
  view.setUint16(32, 2, true); // bytes a sample
  view.setUint16(34, 16, true); // bits a sample
  text(36, "data");
  view.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) {
    const sample = Math.max(-1, Math.min(1, samples[i]));
    view.setInt16(44 + i * 2, sample < 0 ? sample * 0x8000 : sample * 0x7fff, true);
  }
  return bytes;
}

/// "0:07", "1:23": a recording's length as the button shows it.
export function clock(seconds) {
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
