import { graphql } from '../gql/index.ts';

/**
 * The recorder's typed operations. They exist in the schema only with ENABLE_QA_AUTOMATION, so
 * nothing here is sent unless the bootstrap lists the `qa.recording` model (RecorderButton).
 */
export const ActiveAppsDocument = graphql(`
  query QaActiveApps { presentationBootstrap { active_apps { name summary } } }
`);

export const RecordingStateDocument = graphql(`
  query QaRecordingState($id: ID!) {
    qaRecording(id: $id) { id name usecase_key module status start_path promoted_usecase_id { id key version } }
    qaRecordingSteps(where: { recording_id: { eq: $id } }, orderBy: [{ sequence: desc }], limit: 1) { id sequence kind caption }
  }
`);

export const StartDocument = graphql(`
  mutation QaRecordingStart($usecase_key: String!, $module: String!, $name: String, $start_path: String) {
    qaRecordingStart(usecase_key: $usecase_key, module: $module, name: $name, start_path: $start_path) {
      id name usecase_key module status start_path promoted_usecase_id { id key version }
    }
  }
`);

export const AppendStepDocument = graphql(`
  mutation QaRecordingAppendStep($recording_id: ID!, $kind: String!, $target: JSON, $value: JSON, $assertion: JSON,
    $timeout_ms: Int, $screenshot: String, $caption: String, $url: String) {
    qaRecordingAppendStep(recording_id: $recording_id, kind: $kind, target: $target, value: $value, assertion: $assertion,
      timeout_ms: $timeout_ms, screenshot: $screenshot, caption: $caption, url: $url) { id sequence kind }
  }
`);

/** A caption for a step already stored (the last one). */
export const StepCaptionDocument = graphql(`
  mutation QaRecordingStepCaption($id: ID!, $caption: String) { qaRecordingStepUpdate(id: $id, input: { caption: $caption }) { id caption } }
`);

export const FinalizeDocument = graphql(`
  mutation QaRecordingFinalize($id: ID!) { qaRecordingFinalize(id: $id) { id status } }
`);

export const PromoteDocument = graphql(`
  mutation QaRecordingPromote($id: ID!, $usecase_key: String, $name: String) { qaRecordingPromote(id: $id, usecase_key: $usecase_key, name: $name) { usecase { key version } } }
`);
