//! 한국어 (Korean).

use super::table::Words;

pub const KO: Words = Words {
    tray_open_notes: "노트 열기",
    tray_export_usage_log: "사용 로그 내보내기...",
    tray_recheck_provider: "Ollama 재확인",
    tray_process_ai_now: "지금 AI 처리 (실패 {failed}건)",
    tray_quit: "종료",
    tray_tooltip_provider_down: "inkling: Ollama 를 사용할 수 없습니다",
    tray_tooltip_failed: "inkling: AI 처리 실패 {failed}건",
    stats_title: "# inkling 사용 통계",
    stats_generated:
        "{at} 에 로컬 사용 로그로 만든 보고서입니다. 이 기기 밖으로는 아무것도 보내지 않습니다.",
    stats_empty: "아직 기록이 없습니다.",
    stats_column_date: "날짜 (UTC)",
    stats_column_captured: "캡처",
    stats_column_ai_done: "AI 완료",
    stats_column_ai_failed_schema: "AI 실패 (schema)",
    stats_column_ai_failed_other: "AI 실패 (other)",
    stats_column_rechecks: "Ollama 재확인",
    stats_column_retries: "AI 재시도",
    stats_totals: "## 누적",
    stats_total_captured: "- 캡처한 노트: {n} 건",
    stats_total_ai_done: "- AI 완료: {n} 건",
    stats_total_ai_failed: "- AI 실패: {n} 건 (schema {schema}, other {other})",
    stats_total_rechecks: "- Ollama 수동 재확인 사용량: {n} 회",
    stats_total_recoveries: "- Ollama 회복: {n} 회",
    stats_total_retries: "- AI 수동 재시도 사용량: {times} 회 / 누적 {notes} 건",
    stats_total_enrich_requests: "- 노트 한 건 AI 다시 요청: {n} 회",
    stats_total_edited: "- 직접 고친 노트: {n} 건",
    stats_total_tags_renamed: "- 태그 이름 바꾸기: {n} 회 (다른 태그와 합침: {merged} 회)",
    stats_total_transfers: "- 노트 내보내기: {exports} 회, 가져온 노트: {imported} 건",
    stats_total_trash: "- 휴지통으로: {trashed} 건, 복원: {restored} 건",
    stats_total_model_time: "- 모델 시간: {time}",
};
