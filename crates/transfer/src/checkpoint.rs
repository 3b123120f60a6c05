//! Checkpoints: a directory per run holding `run.json` (what the run is) and one
//! `segment-NNNN.json` per segment (how far it got). Each file is replaced atomically (write
//! a temporary file, then rename), and a segment saves its state only after the work it
//! records is done (items written to the target, or lines written to the part file), so a
//! run stopped at any point, Ctrl-C included, leaves a checkpoint a rerun can trust.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::TransferError;

/// What a run is; a resumed run must be the same run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// `export`, `import` or `copy`.
    pub kind: String,
    /// The source (endpoint and table, or input file).
    pub source: String,
    /// The target (endpoint and table, or output file).
    pub target: String,
    /// Scan segments (export, copy) or writers (import).
    pub segments: u32,
}

/// How far one segment got.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SegmentState {
    /// The Scan key to continue from (DynamoDB JSON), when the segment has started.
    #[serde(default)]
    pub last_key: Option<Value>,
    /// The segment has finished.
    #[serde(default)]
    pub done: bool,
    /// Items this segment has transferred.
    #[serde(default)]
    pub items: u64,
    /// Bytes this segment has transferred (for an export: the length of its part file).
    #[serde(default)]
    pub bytes: u64,
    /// For an import: how many of this writer's batches are written.
    #[serde(default)]
    pub batches: u64,
}

/// A run's checkpoint directory.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    dir: PathBuf,
}

impl Checkpoint {
    /// Opens the checkpoint at `dir` for `run`. A new run creates it; an existing one is
    /// refused unless `resume`, and must describe the same run (its segment count wins).
    /// Returns the checkpoint, the run as recorded, and each segment's state.
    pub fn open(
        dir: &Path,
        run: &RunInfo,
        resume: bool,
    ) -> Result<(Checkpoint, RunInfo, Vec<SegmentState>), TransferError> {
        let cp = Checkpoint { dir: dir.to_owned() };
        let run_file = dir.join("run.json");
        if run_file.exists() {
            if !resume {
                return Err(TransferError::Checkpoint(format!(
                    "{} holds the checkpoint of an interrupted run: rerun with --resume to continue it, or delete it to start over",
                    dir.display()
                )));
            }
            let text = fs::read_to_string(&run_file)
                .map_err(|e| TransferError::io(run_file.display().to_string(), e))?;
            let recorded: RunInfo = serde_json::from_str(&text)
                .map_err(|e| TransferError::Checkpoint(format!("{}: {e}", run_file.display())))?;
            if (&recorded.kind, &recorded.source, &recorded.target) != (&run.kind, &run.source, &run.target) {
                return Err(TransferError::Checkpoint(format!(
                    "{} is the checkpoint of another run ({} from {} to {})",
                    dir.display(),
                    recorded.kind,
                    recorded.source,
                    recorded.target
                )));
            }
            let states = (0..recorded.segments).map(|s| cp.load(s)).collect::<Result<_, _>>()?;
            return Ok((cp, recorded, states));
        }
        fs::create_dir_all(dir).map_err(|e| TransferError::io(dir.display().to_string(), e))?;
        cp.write_atomically(&run_file, &serde_json::to_vec_pretty(run).unwrap_or_default())?;
        Ok((cp, run.clone(), vec![SegmentState::default(); run.segments as usize]))
    }

    fn segment_file(&self, segment: u32) -> PathBuf {
        self.dir.join(format!("segment-{segment:04}.json"))
    }

    /// The part file an export's segment writes its lines to.
    pub fn part_file(&self, segment: u32) -> PathBuf {
        self.dir.join(format!("segment-{segment:04}.jsonl"))
    }

    fn load(&self, segment: u32) -> Result<SegmentState, TransferError> {
        let path = self.segment_file(segment);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| TransferError::Checkpoint(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SegmentState::default()),
            Err(e) => Err(TransferError::io(path.display().to_string(), e)),
        }
    }

    /// Records `state` for `segment`, replacing the previous state atomically.
    pub fn save(&self, segment: u32, state: &SegmentState) -> Result<(), TransferError> {
        let bytes = serde_json::to_vec(state).map_err(|e| TransferError::Checkpoint(e.to_string()))?;
        self.write_atomically(&self.segment_file(segment), &bytes)
    }

    fn write_atomically(&self, path: &Path, bytes: &[u8]) -> Result<(), TransferError> {
        let tmp = path.with_extension("tmp");
        fs::write(&tmp, bytes).map_err(|e| TransferError::io(tmp.display().to_string(), e))?;
        fs::rename(&tmp, path).map_err(|e| TransferError::io(path.display().to_string(), e))
    }

    /// Deletes the checkpoint after a finished run.
    pub fn remove(self) -> Result<(), TransferError> {
        fs::remove_dir_all(&self.dir).map_err(|e| TransferError::io(self.dir.display().to_string(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(segments: u32) -> RunInfo {
        RunInfo { kind: "copy".into(), source: "a/T".into(), target: "b/T".into(), segments }
    }

    #[test]
    fn an_existing_checkpoint_is_refused_without_resume_and_reloaded_with_it() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("cp");
        let (cp, _, states) = Checkpoint::open(&dir, &run(3), false).expect("new checkpoint");
        assert_eq!(states.len(), 3);
        let state = SegmentState {
            last_key: Some(serde_json::json!({"pk": {"S": "k"}})),
            items: 7,
            ..Default::default()
        };
        cp.save(1, &state).expect("save");
        assert!(matches!(Checkpoint::open(&dir, &run(3), false), Err(TransferError::Checkpoint(_))));
        // The recorded segment count wins over the one asked for on resume.
        let (_, recorded, states) = Checkpoint::open(&dir, &run(8), true).expect("resume");
        assert_eq!(recorded.segments, 3);
        assert_eq!(states[1], state);
        assert_eq!(states[0], SegmentState::default());
    }

    #[test]
    fn a_checkpoint_of_another_run_is_refused() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("cp");
        Checkpoint::open(&dir, &run(2), false).expect("new checkpoint");
        let other = RunInfo { target: "c/T".into(), ..run(2) };
        assert!(matches!(Checkpoint::open(&dir, &other, true), Err(TransferError::Checkpoint(_))));
    }
}
