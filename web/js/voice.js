// The microphone button of the capture box: a voice note recorded, its time shown, and
// sent the moment it stops. Recorded with Web Audio as PCM and sent as 16 kHz mono WAV
// (wav.js), which every speech-to-text server reads (docs/DESIGN.md, "Voice notes").
// The service stores the recording before it answers, then turns it into words in the
// background; the card says so until they come (card.js). With voice notes off, the
// button says how to turn them on.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, showProblem } from "./dom.js";
import { answered } from "./notes.js";
import { clock, encodeWav, resample } from "./wav.js";

// Whether voice notes are on, as the service last said (null: not asked yet).
let enabled = null;
// The recording in progress: {stream, context, source, processor, chunks, started, timer}.
let recording = null;
// The samples read at a time: ~85 ms at 48 kHz.
const FRAME = 4096;

async function voiceOn() {
  if (enabled === null) {
    try {
      enabled = (await api.transcription()).enabled;
    } catch {
      enabled = null;
      return true; // the upload will say what is wrong
    }
  }
  return enabled;
}

function showRecording(on) {
  const button = $("capture-voice");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? t("voiceStop") : t("voiceRecord");
  button.setAttribute("aria-label", on ? t("voiceStopLabel") : t("voiceRecordLabel"));
  $("voice-time").hidden = !on;
}

function tick() {
  $("voice-time").textContent = t("voiceRecording", { time: clock((Date.now() - recording.started) / 1000) });
}

async function start() {
  if (!(await voiceOn())) return showProblem(t("voiceOff"), t("voiceOffDetail"));
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1 } });
  } catch (failure) {
    return showProblem(t("voiceNoMicrophone"), failure.message);
  }
  const context = new AudioContext();
  const source = context.createMediaStreamSource(stream);
  // A ScriptProcessorNode: an AudioWorklet would need a module of its own for the same
  // copy of samples; this one is enough for speech and works in every browser.
  const processor = context.createScriptProcessor(FRAME, 1, 1);
  const chunks = [];
  processor.onaudioprocess = (event) => chunks.push(new Float32Array(event.inputBuffer.getChannelData(0)));
  source.connect(processor);
  processor.connect(context.destination);
  recording = { stream, context, source, processor, chunks, started: Date.now(), timer: null };
  recording.timer = setInterval(tick, 250);
  tick();
  showRecording(true);
  $("capture-error").hidden = true;
}

async function stop() {
  const { stream, context, source, processor, chunks, timer } = recording;
  recording = null;
  clearInterval(timer);
  showRecording(false);
  source.disconnect();
  processor.disconnect();
  for (const track of stream.getTracks()) track.stop();
  const rate = context.sampleRate;
  await context.close();
  const wav = encodeWav(resample(chunks, rate));
  if (wav.length <= 44) return showProblem(t("voiceEmpty"), "");
  await send(wav);
}

async function send(wav) {
  const button = $("capture-voice");
  button.disabled = true;
  try {
    answered(await api.captureVoice(wav, "audio/wav"));
    await sayWhenServerAway();
  } catch (failure) {
    if (failure instanceof api.NoSession) return;
    if (failure instanceof api.ApiFailure && failure.status === 409) {
      enabled = false;
      return showProblem(t("voiceOff"), t("voiceOffDetail"));
    }
    return showProblem(t("voiceNotSaved"), failure.message);
  } finally {
    button.disabled = false;
  }
}

/// Saved, but the speech-to-text server is not ready: said beside the button (the note
/// is safe and waits; its card says its words are on their way).
async function sayWhenServerAway() {
  let voice;
  try {
    voice = await api.transcription();
  } catch {
    return;
  }
  const state = voice.health && voice.health.state;
  if (!voice.enabled || state === "ready") return;
  const line = $("voice-time");
  line.textContent = t(state === "loading" ? "voiceServerLoading" : "voiceServerAway");
  line.hidden = false;
}

export function wireVoice() {
  $("capture-voice").addEventListener("click", () => (recording ? stop() : start()));
  // The line about the server goes once the person writes the next note.
  $("capture-body").addEventListener("input", () => {
    if (!recording) $("voice-time").hidden = true;
  });
}
