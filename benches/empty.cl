// Does nothing: measures the cost of an enqueue.
kernel void empty(global int* unused) {
}
