package table

// Feed says that an in buffer of a family's launch is the output of
// another family's launch (fed_by in templates/kernels.yaml): the
// producer's op is {Family, the dtype of the values it takes, M, N, K},
// its shape expressions over the consumer's op (m, n, k).
type Feed struct {
	Buffer  string // the consumer's in buffer the producer's out buffer is
	Family  string // the producer
	M, N, K string
}
