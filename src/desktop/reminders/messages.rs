//! The reminder actor's messages.

use actix::Message;

use super::notifier::DesktopEvent;

/// Look at the reminders now (at start; the actor looks again by itself).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Look;

/// What the desktop said of a notification shown (a button clicked, closed).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct FromDesktop(pub DesktopEvent);

/// Whether a look or a button's work is under way: a test's barrier (a round trip
/// through the actor that answers false once nothing is in flight).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct IsBusy;
