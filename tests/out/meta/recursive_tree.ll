; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"CullRoots"()

declare void @"TraverseTile"()

declare void @"EmitLeaf"()

declare void @"LeafStatistics"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !11, !20, !25, !28 }
!wgc.spirv.entryPoints = !{ !29, !30, !31, !32 }
!wgc.experimental.tags = !{ !33, !34 }
!llvm.ident = !{ !35 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"CullRoots", i32 0 }
!4 = !{ i32 1, i32 1, i32 1 }
!5 = !{ i32 0, i32 12, i32 2, i32 4 }
!6 = !{ !"TraverseTile", i32 0 }
!7 = !{ i32 1, i32 6, i32 2, !5, i32 3, i32 16, i32 0, !6 }
!8 = !{ !7 }
!9 = !{ i32 4, i32 4, i32 1 }
!10 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !3, i32 16, i32 -1, i32 18, !4, i32 21, !8, i32 4, !9 }
!11 = !{ void ()* @"CullRoots", !"CullRoots", null, null, !10 }
!12 = !{ i32 1, i32 33, i32 2, !5 }
!13 = !{ !12 }
!14 = !{ i32 1, i32 6, i32 2, !5, i32 3, i32 4, i32 0, !6 }
!15 = !{ i32 0, i32 16, i32 2, i32 4 }
!16 = !{ !"EmitLeaf", i32 0 }
!17 = !{ i32 1, i32 6, i32 2, !15, i32 3, i32 1, i32 0, !16 }
!18 = !{ !14, !17 }
!19 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !6, i32 16, i32 -1, i32 19, i32 8, i32 20, !13, i32 21, !18, i32 4, !4 }
!20 = !{ void ()* @"TraverseTile", !"TraverseTile", null, null, !19 }
!21 = !{ i32 1, i32 65, i32 2, !15, i32 3, i32 32 }
!22 = !{ !21 }
!23 = !{ i32 32, i32 1, i32 1 }
!24 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !16, i32 16, i32 -1, i32 20, !22, i32 4, !23 }
!25 = !{ void ()* @"EmitLeaf", !"EmitLeaf", null, null, !24 }
!26 = !{ !"LeafStatistics", i32 0 }
!27 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !26, i32 16, i32 -1, i32 17, !16, i32 20, !22, i32 4, !23 }
!28 = !{ void ()* @"LeafStatistics", !"LeafStatistics", null, null, !27 }
!29 = !{ void ()* @"CullRoots", !"CullRoots" }
!30 = !{ void ()* @"TraverseTile", !"TraverseTile" }
!31 = !{ void ()* @"EmitLeaf", !"EmitLeaf" }
!32 = !{ void ()* @"LeafStatistics", !"LeafStatistics" }
!33 = !{ !"NodeMaxLoopIterations", i32 131072 }
!34 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!35 = !{ !"wgc 0.1.0" }
