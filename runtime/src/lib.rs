//! vecl's device runtime (to be written): the work-stealing pool, work-group
//! execution, memory objects, queues and events.
